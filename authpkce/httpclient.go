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
func newHTTPClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          10,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		},
		Timeout:       30 * time.Second,
		CheckRedirect: refuseInsecureRedirect,
	}
}
