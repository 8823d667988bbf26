package demohost

import (
	"testing"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// TestShellTerminal: a terminal a test runs is listed on the root, its
// output reaches a subscriber as terminal/data, its exit is said on the
// channel and in the root's list, and once removed the root no longer
// lists it and its channel is gone.
func TestShellTerminal(t *testing.T) {
	h, v := startHost(t, Config{NoDemoSession: true})
	c := dial(t, h, v, "shell-test")
	c.initialize(rootURI)
	const uri = "agenthost-terminal://test/build"
	if err := h.RunTerminal(uri, "build"); err != nil {
		t.Fatal(err)
	}
	if err := h.RunTerminal(uri, "build"); err == nil {
		t.Fatal("a terminal ran twice under one URI")
	}
	var sub protocol.SubscribeResult
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: uri}, &sub)
	if err := h.WriteTerminal(uri, "ok  pkg 0.1s\r\n"); err != nil {
		t.Fatal(err)
	}
	c.waitEnvelope("terminal/data", uri, func(e protocol.ActionEnvelope) bool {
		d, ok := e.Action.Variant.(protocol.TerminalDataAction)
		return ok && d.Data == "ok  pkg 0.1s\r\n"
	})
	if err := h.ExitTerminal(uri, 2); err != nil {
		t.Fatal(err)
	}
	c.waitEnvelope("terminal/exited", uri, func(e protocol.ActionEnvelope) bool {
		x, ok := e.Action.Variant.(protocol.TerminalExitedAction)
		return ok && x.ExitCode != nil && *x.ExitCode == 2
	})
	c.waitEnvelope("listed as exited", rootURI, func(e protocol.ActionEnvelope) bool {
		r, ok := e.Action.Variant.(protocol.RootTerminalsChangedAction)
		if !ok || len(r.Terminals) != 1 {
			return false
		}
		x, exited := r.Terminals[0].Lifecycle.Variant.(protocol.TerminalExitedLifecycleState)
		return exited && x.ExitCode != nil && *x.ExitCode == 2
	})
	if err := h.RemoveTerminal(uri); err != nil {
		t.Fatal(err)
	}
	c.waitEnvelope("no longer listed", rootURI, func(e protocol.ActionEnvelope) bool {
		r, ok := e.Action.Variant.(protocol.RootTerminalsChangedAction)
		return ok && len(r.Terminals) == 0
	})
	if err := h.WriteTerminal(uri, "x"); err == nil {
		t.Fatal("output written into a removed terminal")
	}
	c.wantError("subscribe", protocol.SubscribeParams{Channel: uri}, jsonrpc.NotFound)
}
