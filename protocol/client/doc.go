// Package client is ahptui's AHP client runtime: Dial and initialize with
// version negotiation, subscribe, commands, dispatchAction, the state
// mirror with write-ahead reconciliation, reconnect, the typed host errors
// and the event stream the UI consumes. Wire types and reducers come from
// package protocol.
//
// It must never import ui, views, keymap, demohost or authpkce; demohost
// never imports it (tests may).
package client
