// Package registry reads VS Code's local agent-host endpoint registry
// (src/vs/platform/agentHost/LOCAL_ENDPOINT.md in microsoft/vscode): the
// per-instance entries/<identity>.json files under
// <userDataPath>/agent-host/local-endpoint/, plus the read-only legacy
// metadata.json array, through which VS Code windows and `code agent
// host` publish where they listen and their connection token.
//
// Everything in the registry is untrusted input: each entry is validated
// on its own, a directory that is not owner-only (or is a symlink) is
// refused whole, an entry file that is not ours, not owner-only or has a
// second hard link is skipped, a pid counts as live only when it runs as
// this user, and an endpoint is used exactly as published (the dialer
// verifies who listens there: host/dial.VerifyPeer). The
// package only reads; it never writes, prunes or removes a file.
//
// It imports no UI package and nothing of ahptui's but the standard
// library.
package registry
