package views

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

var statusBarCases = []struct {
	name string
	sb   StatusBar
}{
	{"connecting", StatusBar{Host: "ws://127.0.0.1:7300/ahp", State: ConnConnecting}},
	{"ready", StatusBar{Host: "ws://127.0.0.1:7300/ahp", ProtocolVersion: "0.6.0", State: ConnReady}},
	{"ready_needs_input", StatusBar{Host: "wss://agents.example.com/ahp", ProtocolVersion: "0.6.0", State: ConnReady, NeedsInput: 2}},
	{"ready_message", StatusBar{Host: "wss://agents.example.com/ahp", ProtocolVersion: "0.6.0", State: ConnReady, NeedsInput: 1,
		Message: "session created"}},
	{"ready_error_message", StatusBar{Host: "wss://agents.example.com/ahp", ProtocolVersion: "0.6.0", State: ConnReady,
		Message: "action rejected: tool call tc-42 is no longer pending confirmation", MessageIsError: true}},
	{"reconnecting", StatusBar{Host: "wss://agents.example.com/ahp", ProtocolVersion: "0.6.0", State: ConnReconnecting,
		Attempt: 3, Cause: "read tcp 127.0.0.1:51234: connection reset by peer"}},
	{"failed", StatusBar{Host: "wss://agents.example.com/ahp", State: ConnFailed,
		FailedReason: "no common protocol version (host offers 0.4.0)", FailedHint: "upgrade the host or run an older ahptui"}},
	{"hostile", StatusBar{Host: "evil\x1b]52;c;cm0gLXJm\x07.example\x1b[2J", ProtocolVersion: "0.6.0\x1b[31m", State: ConnReady,
		Message: "\x1b]8;;http://evil\x1b\\click me\x1b]8;;\x1b\\\r\u202eoverride", MessageIsError: true}},
}

func TestRenderStatusBarGolden(t *testing.T) {
	for _, tc := range statusBarCases {
		for _, w := range []int{60, 100, 160} {
			t.Run(fmt.Sprintf("%s/w%d", tc.name, w), func(t *testing.T) {
				out := RenderStatusBar(NewTheme(true, false), tc.sb, w)
				golden.RequireEqual(t, out)
			})
		}
	}
	// One width without colour, so the golden files also show what a
	// NO_COLOR user reads.
	for _, tc := range statusBarCases {
		t.Run(tc.name+"/nocolor_w100", func(t *testing.T) {
			golden.RequireEqual(t, RenderStatusBar(NewTheme(true, true), tc.sb, 100))
		})
	}
}

// Properties that must hold at every width and for every state, including
// widths below the supported 60 columns.
func TestRenderStatusBarFitsExactly(t *testing.T) {
	for _, th := range []Theme{NewTheme(true, false), NewTheme(false, true)} {
		for _, tc := range statusBarCases {
			for w := 1; w <= 250; w++ {
				out := RenderStatusBar(th, tc.sb, w)
				if got := lipgloss.Width(out); got != w {
					t.Fatalf("%s w=%d: width %d, want exactly %d: %q", tc.name, w, got, w, ansi.Strip(out))
				}
				if strings.Contains(out, "\n") {
					t.Fatalf("%s w=%d: more than one line", tc.name, w)
				}
				plain := ansi.Strip(out)
				if strings.ContainsAny(plain, "\x1b\r\u202e\a") {
					t.Fatalf("%s w=%d: control characters leaked: %q", tc.name, w, plain)
				}
				if strings.Contains(plain, "52;c") || strings.Contains(plain, "evil\u00a0") {
					t.Fatalf("%s w=%d: escape payload leaked: %q", tc.name, w, plain)
				}
			}
		}
	}
	if RenderStatusBar(NewTheme(true, false), StatusBar{}, 0) != "" {
		t.Error("width 0 must render nothing")
	}
	if RenderStatusBar(NewTheme(true, false), StatusBar{}, -5) != "" {
		t.Error("negative width must render nothing")
	}
}

// The state is the one thing a narrow bar must never lose; the version goes
// first, then the host.
func TestRenderStatusBarPriorities(t *testing.T) {
	th := NewTheme(true, true)
	sb := StatusBar{Host: "wss://agents.example.com/ahp", ProtocolVersion: "0.6.0", State: ConnReady,
		NeedsInput: 2, Message: "session created on the demo host"}
	tests := []struct {
		width                        int
		wantState, wantHost, wantVer bool
		wantNeeds, wantMsgStart      bool
	}{
		{160, true, true, true, true, true},
		{100, true, true, false, true, true},
		{60, true, false, false, true, true},
		{30, true, false, false, false, true},
	}
	for _, tc := range tests {
		plain := ansi.Strip(RenderStatusBar(th, sb, tc.width))
		check := func(what string, want bool, sub string) {
			if got := strings.Contains(plain, sub); got != want {
				t.Errorf("w=%d: contains %s (%q) = %v, want %v\n%q", tc.width, what, sub, got, want, plain)
			}
		}
		check("state", tc.wantState, "connected")
		check("host", tc.wantHost, "agents.example.com")
		check("version", tc.wantVer, "AHP 0.6.0")
		check("needs input", tc.wantNeeds, "2 need input")
		check("message", tc.wantMsgStart, "session")
	}
}

func TestRenderStatusBarStateDetails(t *testing.T) {
	th := NewTheme(true, true)
	tests := []struct {
		sb   StatusBar
		want []string
	}{
		{StatusBar{State: ConnReconnecting, Attempt: 4, Cause: "EOF"}, []string{"reconnecting", "attempt 4", "EOF"}},
		{StatusBar{State: ConnFailed, FailedReason: "refused", FailedHint: "check --url"}, []string{"disconnected", "refused", "check --url"}},
		{StatusBar{State: ConnConnecting}, []string{"connecting"}},
		{StatusBar{State: ConnReady, NeedsInput: 1}, []string{"1 needs input"}},
	}
	for _, tc := range tests {
		plain := ansi.Strip(RenderStatusBar(th, tc.sb, 120))
		for _, w := range tc.want {
			if !strings.Contains(plain, w) {
				t.Errorf("%v: %q missing from %q", tc.sb.State, w, plain)
			}
		}
	}
}

// TestStatusBarFailedShowsReply: a key's reply while disconnected ("not
// connected", issue 22 item 3) was dropped at 80 columns, where the
// failure's parts took the room; it shows first for its lifetime.
func TestStatusBarFailedShowsReply(t *testing.T) {
	sb := StatusBar{State: ConnFailed, Host: "ws://127.0.0.1:40000/", NextTry: "next try in 16s",
		FailedReason: "connection refused", FailedHint: "ctrl+r retries",
		Message: "not connected: wait for the status bar to say ready", MessageIsError: true}
	for _, w := range []int{80, 120} {
		out := ansi.Strip(RenderStatusBar(noColorTheme, sb, w))
		if !strings.Contains(out, "not connected") {
			t.Errorf("width %d: the reply is dropped: %q", w, out)
		}
		if ansi.StringWidth(out) != w {
			t.Errorf("width %d: bar is %d cells", w, ansi.StringWidth(out))
		}
	}
	sb.Message = ""
	if out := ansi.Strip(RenderStatusBar(noColorTheme, sb, 80)); !strings.Contains(out, "ctrl+r retries") {
		t.Errorf("with no reply the remedy is cut: %q", out)
	}
}

// BenchmarkRenderStatusBar protects the per-frame cost of the status line:
// budget 50 µs per render at 160 columns.
func BenchmarkRenderStatusBar(b *testing.B) {
	th := NewTheme(true, false)
	sb := statusBarCases[4].sb
	for b.Loop() {
		_ = RenderStatusBar(th, sb, 160)
	}
}

// A failure's remedy is never the part that is cut: the host goes first,
// then the reason shrinks, and the hint stays whole at 60 and 100 columns.
func TestStatusBarKeepsRemedy(t *testing.T) {
	sb := StatusBar{State: ConnFailed, Host: "wss://agents.example.com:8443/ahp", ProtocolVersion: "0.6.0",
		FailedReason: "gave up reconnecting after 2m0s: dial tcp 10.0.0.7:8443: connect: connection refused",
		FailedHint:   "press ctrl+r to reconnect"}
	for _, w := range []int{60, 100} {
		out := ansi.Strip(RenderStatusBar(noColorTheme, sb, w))
		if !strings.Contains(out, "press ctrl+r to reconnect") {
			t.Errorf("width %d: remedy cut: %q", w, out)
		}
		if !strings.Contains(out, "gave up") {
			t.Errorf("width %d: reason dropped although there is room: %q", w, out)
		}
		if ansi.StringWidth(out) != w {
			t.Errorf("width %d: bar is %d cells", w, ansi.StringWidth(out))
		}
	}
}
