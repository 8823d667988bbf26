// Package protocol holds the Agent Host Protocol (AHP) wire: the types
// (generated from the spec's JSON Schemas), the pure reducers for every
// channel kind, and the version rules (SemVer ranges, negotiation, which
// wire a version implies). A host may import it: the demo host keeps its
// state with these reducers.
//
// The client runtime (Dial, Client, the mirror, reconnect, events) is in
// protocol/client, which imports this package and never the other way, so
// a host cannot reach the client it is tested against.
//
// It must never import ui, views, keymap, demohost, authpkce or
// protocol/client.
package protocol
