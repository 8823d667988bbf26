// Package ui is the Bubble Tea program: a root model that routes messages
// to components and lays them out. The components (sessionList,
// chatPanel, mcpPanel, signIn, inputForm, statusLine) each own their
// state, keys, update and view, in files named after them; what they all
// read (config, keys, theme, the client and the watched snapshots) is app,
// which only the root writes. DESIGN.md lists who owns what.
//
// Protocol events arrive as tea.Msg values through one command that waits
// on the event channel and re-arms itself; long jobs (OAuth flows,
// reconnects) are tea.Cmds that report back with a message and are
// cancelled through their context. Status and errors are messages too
// (reportInfo, reportError), shown by the status line.
//
// The model holds the latest snapshots the client hands out and never
// mutates them; everything it draws goes through views, which sanitizes
// host strings. Keys come from keymap, matched per keymap.Context, so
// printable keys reach the composer and input forms instead of bindings.
//
// ui talks to the host through the small Client interface (the methods of
// *client.Client it uses), so tests can wrap the real client. It imports
// protocol, authpkce, views and keymap; never demohost (tests may).
package ui
