package hostilehost

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// ASScenario is what a hostile authorization server (one a hostile host
// names for its protected resources) tries.
type ASScenario int

const (
	// ASRegisterElsewhere: the metadata puts registration_endpoint on
	// another local service (the Trap), so a sign-in POSTs there with a
	// scope string the host chose.
	ASRegisterElsewhere ASScenario = iota + 1
	// ASRedirectToAdmin: every metadata URL answers 302 to the Trap's
	// /admin/shutdown?confirm=yes, for the client to follow with a GET.
	ASRedirectToAdmin
	// ASDeviceElsewhere: the device authorization response's
	// verification_uri is another origin (https://microsoft.com/devicelogin),
	// as when the server relays a real provider's device code to phish
	// the user's approval.
	ASDeviceElsewhere
)

// RelayedVerificationURI is the verification address ASDeviceElsewhere
// hands out.
const RelayedVerificationURI = "https://microsoft.com/devicelogin"

// AuthServer is a hostile authorization server on 127.0.0.1 playing one
// ASScenario, with the other local service it aims at (the Trap), which
// counts every request it gets: a client that holds its ground leaves it
// at zero.
type AuthServer struct {
	scenario ASScenario
	srv      *http.Server
	ln       net.Listener
	trap     *http.Server
	trapLn   net.Listener
	trapHits atomic.Int64
}

// StartAuthServer serves scenario until Close.
func StartAuthServer(scenario ASScenario) (*AuthServer, error) {
	a := &AuthServer{scenario: scenario}
	var err error
	if a.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("hostilehost: listen: %w", err)
	}
	if a.trapLn, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		_ = a.ln.Close()
		return nil, fmt.Errorf("hostilehost: listen: %w", err)
	}
	a.trap = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.trapHits.Add(1)
		http.Error(w, "admin console: done", http.StatusTeapot)
	})}
	a.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(a.serve)}
	go func() { _ = a.srv.Serve(a.ln) }()
	go func() { _ = a.trap.Serve(a.trapLn) }()
	return a, nil
}

// Issuer is the issuer URL the hostile host names.
func (a *AuthServer) Issuer() string { return "http://" + a.ln.Addr().String() }

// TrapURL is the other local service's base URL.
func (a *AuthServer) TrapURL() string { return "http://" + a.trapLn.Addr().String() }

// TrapHits is how many requests the other local service received.
func (a *AuthServer) TrapHits() int64 { return a.trapHits.Load() }

// ProtectedResource is RFC 9728 metadata for resource naming this server,
// for a hostile host's AgentInfo.protectedResources or auth requirement.
func (a *AuthServer) ProtectedResource(resource string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"resource": resource, "authorization_servers": []string{a.Issuer()}})
	return b
}

// Close stops both servers.
func (a *AuthServer) Close() error {
	return errors.Join(a.srv.Close(), a.trap.Close())
}

func (a *AuthServer) serve(w http.ResponseWriter, r *http.Request) {
	iss := a.Issuer()
	switch {
	case a.scenario == ASRedirectToAdmin:
		http.Redirect(w, r, a.TrapURL()+"/admin/shutdown?confirm=yes", http.StatusFound)
	case r.URL.Path == "/.well-known/oauth-authorization-server":
		md := map[string]any{
			"issuer": iss, "authorization_endpoint": iss + "/authorize", "token_endpoint": iss + "/token",
			"code_challenge_methods_supported": []string{"S256"},
			"device_authorization_endpoint":    iss + "/device",
		}
		if a.scenario == ASRegisterElsewhere {
			md["registration_endpoint"] = a.TrapURL() + "/admin/users"
		}
		writeJSON(w, http.StatusOK, md)
	case r.URL.Path == "/device" && a.scenario == ASDeviceElsewhere:
		writeJSON(w, http.StatusOK, map[string]any{
			"device_code": "relayed-device-code", "user_code": "RELAY-CODE",
			"verification_uri": RelayedVerificationURI, "expires_in": 900, "interval": 5,
		})
	case r.URL.Path == "/token":
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "authorization_pending"})
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
