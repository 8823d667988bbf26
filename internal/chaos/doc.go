// Package chaos holds the connection-fault and soak tests of the protocol
// client against the demo host (all in _test.go files).
//
// Every test puts internal/faultproxy between one client (the "victim") and
// the demo host, and keeps a second client connected to the host directly as
// the reference: after a fault, the victim must end with byte-identical
// state to the reference, every action it dispatched must have been applied
// exactly once by the host, and its tokens must have been pushed again.
//
// What the host applied is read from the host's own frame tap (a ledger of
// action envelopes by serverSeq), not from either client, so a client bug
// cannot hide itself.
package chaos
