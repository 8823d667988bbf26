package demohost

import (
	"errors"
	"slices"

	"github.com/ahptui/ahptui/protocol"
)

// Shells a test runs on the host (1.0 wire): a terminal the host lists on
// the root, writes output into and ends, as an agent's long build does
// over a working day. The seeded demo terminal (terminals.go) is fixed
// content; these stream. ui's long-day memory benchmark drives them so
// finished terminals go through the client's real subscribe, reducer and
// unsubscribe paths.

var errNoShell = errors.New("demohost: no such terminal (RunTerminal it first)")

// RunTerminal lists uri on the root as a running terminal titled title,
// its claim the session's agent's, with no output yet.
func (h *Host) RunTerminal(uri, title string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.wire.older() {
		return errors.New("demohost: terminals are 1.0 only")
	}
	if h.terminals[uri] != nil {
		return errors.New("demohost: terminal " + uri + " already runs")
	}
	if h.terminals == nil {
		h.terminals = map[string]*protocol.TerminalState{}
	}
	cols, rows := int64(80), int64(24)
	claim := protocol.NewTerminalClaim(protocol.TerminalSessionClaim{Kind: "session", Session: DemoSessionURI, Chat: DemoChatURI})
	running := protocol.TerminalLifecycleState{Variant: protocol.TerminalRunningLifecycleState{Status: "running"}}
	h.terminals[uri] = &protocol.TerminalState{Title: title, Cols: &cols, Rows: &rows, Content: []protocol.TerminalContentPart{},
		Lifecycle: running, Claim: claim}
	list := append(slices.Clone(h.root.Terminals), protocol.TerminalInfo{Resource: uri, Title: title, Claim: claim, Lifecycle: running})
	h.applyLocked(rootURI, protocol.RootTerminalsChangedAction{Terminals: list}, nil)
	return nil
}

// WriteTerminal is the terminal's process writing data (terminal/data).
func (h *Host) WriteTerminal(uri, data string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.terminals[uri] == nil {
		return errNoShell
	}
	h.applyLocked(uri, protocol.TerminalDataAction{Data: data}, nil)
	return nil
}

// ExitTerminal ends the terminal's process with code (terminal/exited),
// and the root lists it as exited.
func (h *Host) ExitTerminal(uri string, code int64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.terminals[uri] == nil {
		return errNoShell
	}
	h.applyLocked(uri, protocol.TerminalExitedAction{ExitCode: &code}, nil)
	exited := protocol.TerminalLifecycleState{Variant: protocol.TerminalExitedLifecycleState{Status: "exited", ExitCode: &code}}
	list := slices.Clone(h.root.Terminals)
	for i := range list {
		if string(list[i].Resource) == uri {
			list[i].Lifecycle = exited
		}
	}
	h.applyLocked(rootURI, protocol.RootTerminalsChangedAction{Terminals: list}, nil)
	return nil
}

// RemoveTerminal disposes of the terminal: the root no longer lists it
// and its channel is gone (its output with it).
func (h *Host) RemoveTerminal(uri string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.terminals[uri] == nil {
		return errNoShell
	}
	delete(h.terminals, uri)
	list := slices.DeleteFunc(slices.Clone(h.root.Terminals), func(t protocol.TerminalInfo) bool { return string(t.Resource) == uri })
	h.applyLocked(rootURI, protocol.RootTerminalsChangedAction{Terminals: list}, nil)
	return nil
}
