// Package demohost is an in-process, spec-conformant AHP 0.6.0 host with a
// scripted agent and a real OAuth 2 authorization server, listening on
// 127.0.0.1 ephemeral ports. It backs `ahptui --demo` and the tests.
//
// It uses protocol for wire types, reducers and JSON-RPC framing only, never
// protocol's client, and never imports ui, views or keymap.
package demohost
