// Package dial names and dials one AHP host: it splits the connection
// secret (VS Code's `?tkn=` connection token) off the URL the user gave, so
// everything ahptui shows, logs or binds grants to is the token-free
// address, and only its dialer puts the token back on the wire. A failed
// dial comes back as a *DialError that names its kind (refused, name not
// resolved, timed out, TLS, the HTTP status at the upgrade) and whose text
// never holds the token.
//
// It imports protocol/jsonrpc for the transport and never imports ui,
// views or authpkce.
package dial
