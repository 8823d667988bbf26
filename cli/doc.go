// Package cli is ahptui's scriptable twin of the terminal UI (issue 24):
// subcommands that read a host's state and act on it, printing text or
// --json and ending with documented exit codes (exit.go). They connect
// the way the UI does (host/pick) and talk to the host through
// protocol/client directly.
//
// It never imports ui or Bubble Tea; views only for its sanitizer and the
// MCP rows the UI derives the same way.
package cli
