// Package client is ahptui's AHP client runtime: Dial and initialize with
// version negotiation, subscribe, commands, dispatchAction, the state
// mirror with write-ahead reconciliation, reconnect, the typed host errors
// and the event stream the UI consumes. Wire types and reducers come from
// package protocol.
//
// It speaks AHP 1.0 (and the 0.10 and 0.9 numbers of the same wire)
// natively and 0.8, 0.7 and 0.6 through protocol/convert at the link (wire.go):
// everything past the link, the mirror and the events included, is 1.0.
//
// It must never import ui, views, keymap, demohost or authpkce; demohost
// never imports it (tests may).
package client
