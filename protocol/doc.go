// Package protocol is ahptui's client library for the Agent Host Protocol
// (AHP) 0.6.0: the wire types (generated from the spec's JSON Schemas), the
// pure reducers for every channel kind, the client (initialize, subscribe,
// commands, dispatchAction), the state mirror with write-ahead
// reconciliation, reconnect, and the typed event stream the UI consumes.
//
// It must never import ui, views, keymap, demohost or authpkce: it is usable
// on its own by any Go program that speaks AHP.
package protocol
