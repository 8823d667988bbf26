// Package ui is the Bubble Tea program: the root model, message routing, and
// the commands that call protocol and authpkce. Protocol events arrive as
// tea.Msg values through one command that waits on the event channel and
// re-arms itself; long jobs (OAuth flows, reconnects) are tea.Cmds that
// report back with a message and are cancelled through their context.
package ui
