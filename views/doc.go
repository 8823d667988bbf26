// Package views is all of ahptui's drawing: functions and small components
// that turn state into strings (panel frames and dialogs, the help screen,
// session list, chat panel and transcript, tool-call card, MCP panel,
// sign-in prompt, status bar, and the screen they compose). It does no I/O
// and never mutates the state it is given; ui holds the behaviour and
// hands views what to draw. Every host-provided string passes through
// Sanitize before it reaches the terminal.
package views
