package authpkce

import (
	"net"
	"net/http"
	"time"
)

// newHTTPClient is the client for discovery, registration and token
// requests when Config.HTTPClient is nil. It has a Transport of its own:
// http.DefaultTransport is process-wide, and any imported package may
// replace or wrap it (tracing wrappers do), which would put code this
// package never chose between it and the authorization server, with the
// tokens in hand.
//
// Its dialer applies the address policy (addrpolicy.go) to the IP it
// connects to. Connections are not kept alive: a pooled connection would
// carry one request's policy into another's.
func newHTTPClient() *http.Client {
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, ControlContext: controlDial}
	return &http.Client{
		Transport: &guardedTransport{base: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           dialer.DialContext,
			DisableKeepAlives:     true,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		}},
		Timeout:       30 * time.Second,
		CheckRedirect: sameOriginRedirect,
	}
}
