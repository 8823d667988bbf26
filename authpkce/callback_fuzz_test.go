package authpkce

import (
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// pageTags are the only tags the callback page's template writes; anything
// else that looks like markup in a response body came from the request.
var pageTags = regexp.MustCompile(`</?(!doctype html|html[^>]*|head|meta [^>]*|title|style|body|h1|p)>`)

// FuzzCallbackHandler drives the loopback callback endpoint as the HTTP
// server does (through loopbackOnly) with an arbitrary method, path, query,
// Host header and peer. The literal STATE in the query stands for the
// flow's real state, so the fuzzer can reach the success path. Properties:
//   - it never panics;
//   - the flow completes only for GET /callback from a loopback peer naming
//     a loopback Host, whose first state value is exactly the flow's and
//     which carries a code and no error — and then with exactly that code;
//   - a refused request never reaches the flow;
//   - the page never reflects request text as markup, and the error the UI
//     shows never carries control characters.
//
// (FuzzCallback in authpkce_test.go covers the query alone.)
func FuzzCallbackHandler(f *testing.F) {
	f.Add(uint8(0), "/callback", "code=abc&state=STATE", "127.0.0.1:1234", true)
	f.Add(uint8(0), "/callback", "state=STATE&code=abc&state=other", "localhost:1", true)
	f.Add(uint8(0), "/callback", "state=other&state=STATE&code=abc", "127.0.0.1", true)
	f.Add(uint8(0), "/callback", "code=abc&state=STATE", "evil.example:1234", true)
	f.Add(uint8(0), "/callback", "code=abc&state=STATE", "127.0.0.1:1234", false)
	f.Add(uint8(1), "/callback", "code=abc&state=STATE", "127.0.0.1:1234", true)
	f.Add(uint8(0), "/callback/", "code=abc&state=STATE", "[::1]:9", true)
	f.Add(uint8(0), "/%2e%2e/callback", "code=abc&state=STATE", "127.0.0.1", true)
	f.Add(uint8(0), "/callback", "code=%3Cscript%3Ealert(1)%3C/script%3E&state=STATE", "127.0.0.1", true)
	f.Add(uint8(0), "/callback", "error=%3Cimg%20src=x%20onerror=alert(1)%3E&error_description=%1b%5b2J%e2%80%ae&state=STATE", "127.0.0.1", true)
	f.Add(uint8(0), "/callback", "error=access_denied&error_description=\"'><svg/onload=x>&state=STATE", "127.0.0.1", true)
	f.Add(uint8(0), "/callback", "code=&state=STATE", "127.0.0.1", true)
	f.Add(uint8(0), "/callback", "code=abc&state=STATE%00", "127.0.0.1", true)
	f.Add(uint8(0), "/callback", "code=abc&state=stat", "127.0.0.1", true)
	f.Add(uint8(0), "/callback", "%zz=%&;;&state=STATE&code=x", "127.0.0.1", true)
	f.Add(uint8(2), "/<b>", "", "127.0.0.1", true)
	methods := []string{http.MethodGet, http.MethodPost, http.MethodHead, http.MethodPut, "BREW"}
	f.Fuzz(func(t *testing.T, m uint8, path, rawQuery, host string, loopbackPeer bool) {
		fl, cancel := testFlow(t)
		defer cancel()
		rawQuery = strings.ReplaceAll(rawQuery, "STATE", fl.state)
		reached := make(chan callback, 1)
		go func() {
			select {
			case cb := <-fl.callbacks:
				cb.reply <- cb.err
				reached <- cb
			case <-fl.ctx.Done():
				close(reached)
			}
		}()
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Method = methods[int(m)%len(methods)]
		req.URL.Path, req.URL.RawPath, req.URL.RawQuery = path, "", rawQuery
		req.Host = host
		req.RemoteAddr = "192.0.2.7:40000"
		if loopbackPeer {
			req.RemoteAddr = "127.0.0.1:40000"
		}
		rec := httptest.NewRecorder()
		loopbackOnly(fl).ServeHTTP(rec, req)
		cancel()
		cb, got := <-reached

		q := req.URL.Query() // what the handler saw, malformed pairs dropped
		admissible := req.Method == http.MethodGet && path == "/callback" && loopbackPeer && isLoopbackHost(hostOnly(host))
		if got && !admissible {
			t.Fatalf("refused request reached the flow: %s %q Host %q peer-loopback=%v", req.Method, path, host, loopbackPeer)
		}
		success := got && cb.err == nil
		wantSuccess := admissible && q.Get("state") == fl.state && q.Get("error") == "" && q.Get("code") != ""
		if success != wantSuccess {
			t.Fatalf("flow completed=%v, want %v (query %q, err %v)", success, wantSuccess, rawQuery, cb.err)
		}
		if success && cb.code != q.Get("code") {
			t.Fatalf("flow got code %q, want %q", cb.code, q.Get("code"))
		}
		if success != (rec.Code == http.StatusOK) {
			t.Fatalf("page status %d for completed=%v", rec.Code, success)
		}
		if got && cb.err != nil && strings.ContainsFunc(cb.err.Error(), isControl) {
			t.Fatalf("error for the terminal carries control characters: %q", cb.err)
		}
		if rest := pageTags.ReplaceAllString(rec.Body.String(), ""); strings.ContainsAny(rest, "<>") {
			t.Fatalf("page reflects markup: %q", rest)
		}
	})
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }
