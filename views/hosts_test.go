package views

import (
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// TestHostSessionsPanelInert: a host's name and state (a host's own
// error text) with escape sequences and newlines are drawn inert, on
// their rows, within the panel's width; the cursor reads › on a header
// as on a session.
func TestHostSessionsPanelInert(t *testing.T) {
	th := NewTheme(true, true)
	rows := []HostListRow{
		{Header: &HostHeader{Name: "ws://evil/\x1b]0;pwned\a\n", State: "failed: \x1b[2Jbye\nnext", Bad: true, Sessions: 1}},
		{Session: protocol.SessionSummary{Resource: "s", Title: "One", Status: protocol.SessionStatusIdle}},
		{Header: &HostHeader{Name: "ws://127.0.0.1:1/", State: "connected · AHP 1.0.0", Active: true}},
	}
	out := RenderHostSessionsPanel(th, rows, 0, 1, 2, time.Now(), 40, 12, true)
	text := strings.Join(out, "\n")
	for _, bad := range []string{"\x1b]0;", "\a", "\x1b[2J"} {
		if strings.Contains(text, bad) {
			t.Errorf("a hostile sequence got through: %q", text)
		}
	}
	for _, l := range out {
		if w := lipgloss.Width(l); w > 40 {
			t.Errorf("a row is %d wide: %q", w, l)
		}
	}
	for _, want := range []string{"› ▪ ws://evil/", "▸ ws://127.0.0.1:1/ (0)", "Sessions (1) · 2 hosts"} {
		if !strings.Contains(text, want) {
			t.Errorf("the panel lacks %q:\n%s", want, text)
		}
	}
	if len(out) != 12 {
		t.Errorf("the panel is %d lines, want 12", len(out))
	}
}

// TestHostKeysInHelpOnlyWithSeveral: the ? overlay lists the host keys
// with several hosts, and not with one (its list has no host rows).
func TestHostKeysInHelpOnlyWithSeveral(t *testing.T) {
	th := NewTheme(true, true)
	k := keymap.DefaultKeyMap()
	flat := func() string {
		return strings.Join(strings.Fields(RenderFullHelp(th, help.New(), k, keymap.ContextSessions, 400, 200, 0)), " ")
	}
	if s := flat(); strings.Contains(s, "connect host") || strings.Contains(s, "retry host") {
		t.Errorf("one host, yet the overlay offers host keys:\n%s", s)
	}
	k.SetMultiHost(true)
	for _, want := range []string{"connect host", "disconnect host", "retry host"} {
		if s := flat(); !strings.Contains(s, want) {
			t.Errorf("several hosts, yet the overlay lacks %q:\n%s", want, s)
		}
	}
}
