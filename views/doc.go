// Package views is pure rendering: functions and small components that turn
// protocol state snapshots into strings (session list, transcript, tool-call
// card, MCP badges, auth prompt, status bar). It does no I/O and never
// mutates the state it is given. Every host-provided string passes through
// Sanitize before it reaches the terminal.
package views
