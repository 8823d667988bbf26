package authpkce

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDeviceVerificationOnAnotherOrigin: a hostile authorization server on
// 127.0.0.1 relays a real provider's device code, so the verification
// address is https://microsoft.com/devicelogin (issue 21, finding 3). The
// grant names the issuer and says the address is not on it, so the sheet
// can warn naming both; the address is re-encoded like an authorization
// URL.
func TestDeviceVerificationOnAnotherOrigin(t *testing.T) {
	for _, c := range []struct {
		name, verification string
		onIssuer           bool
	}{
		{"another origin", "https://microsoft.com/devicelogin", false},
		{"the issuer's origin", "", true}, // filled in with the issuer's own page
		{"the issuer's host on another port", "http://127.0.0.1:1/device", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			as := newHostileAS(t, func(iss string) map[string]any {
				md := baseMetadata(iss)
				md["device_authorization_endpoint"] = iss + "/device_authorization"
				return md
			})
			verification := c.verification
			if verification == "" {
				verification = as.issuer() + "/device"
			}
			as.mux.HandleFunc("/device_authorization", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]any{
					"device_code": "relayed-device-code", "user_code": "ABCD-EFGH",
					"verification_uri": verification + "/x y", "expires_in": 600, "interval": 5,
				})
			})
			as.mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"authorization_pending"}`))
			})
			a, err := New(Config{MemoryOnly: true, Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			g, err := a.StartDevice(misuseCtx(t), hostileRequest(as, ""))
			if err != nil {
				t.Fatalf("StartDevice: %v", err)
			}
			defer g.Cancel()
			if g.Issuer() != as.issuer() {
				t.Errorf("Issuer() = %q, want the issuer the host named, %q", g.Issuer(), as.issuer())
			}
			if g.ServerIsIssuer() != c.onIssuer {
				t.Errorf("ServerIsIssuer() = %v for verification address %s and issuer %s", g.ServerIsIssuer(), g.Device().VerificationURI, as.issuer())
			}
			if want := verification + "/x%20y"; g.Device().VerificationURI != want || g.URL() != want {
				t.Errorf("verification address %q (URL %q), want it re-encoded: %q", g.Device().VerificationURI, g.URL(), want)
			}
			if !strings.Contains(g.ServerHost(), hostOf(verification)) {
				t.Errorf("ServerHost() = %q, want the verification address's host", g.ServerHost())
			}
		})
	}
}
