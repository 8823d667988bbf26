package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

var testNow = time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC)

func ago(d time.Duration) string { return testNow.Add(-d).Format(time.RFC3339Nano) }

func testSessions() []protocol.SessionSummary {
	read := protocol.SessionStatusIsRead
	return []protocol.SessionSummary{
		{Title: "Fix the login bug", Status: protocol.SessionStatusInProgress | read, Activity: ptr("Running tests…"), ModifiedAt: ago(5 * time.Second), Resource: "ahp-session:/1"},
		{Title: "Deploy api to production", Status: protocol.SessionStatusInputNeeded, Activity: ptr("Waiting for deploy approval"), ModifiedAt: ago(3 * time.Minute), Resource: "ahp-session:/2"},
		{Title: "Migrate the database schema to v42 with zero downtime and a rollback plan", Status: protocol.SessionStatusError | read, ModifiedAt: ago(5 * time.Hour), Resource: "ahp-session:/3"},
		{Title: "Write release notes", Status: protocol.SessionStatusIdle | read, ModifiedAt: ago(50 * time.Hour), Resource: "ahp-session:/4"},
		{Title: "", Status: protocol.SessionStatusIdle | read | protocol.SessionStatusIsArchived, ModifiedAt: "2026-01-02T10:00:00Z", Resource: "ahp-session:/5"},
		{Title: "Old experiment", Status: protocol.SessionStatusIdle | read, ModifiedAt: "2025-06-01T10:00:00Z", Resource: "ahp-session:/6"},
		{Title: "Bad timestamp", Status: protocol.SessionStatusIdle, ModifiedAt: "yesterday", Resource: "ahp-session:/7"},
	}
}

func TestRenderSessionListGolden(t *testing.T) {
	sessions := testSessions()
	for _, w := range goldenWidths {
		out := RenderSessionList(noColorTheme, sessions, 1, w, 20, testNow)
		checkScreen(t, noColorTheme, out, w)
		checkGolden(t, "sessions", w, out)
	}
	out := RenderSessionList(colorTheme, sessions, 1, 100, 20, testNow)
	checkScreen(t, colorTheme, out, 100)
	checkGolden(t, "sessions_color", 100, out)
	// The width the layout gives the list.
	out = RenderSessionList(noColorTheme, sessions, 2, MinSessionsWide, 20, testNow)
	checkScreen(t, noColorTheme, out, MinSessionsWide)
	checkGolden(t, "sessions_narrow", MinSessionsWide, out)
	checkGolden(t, "sessions_empty", 60, RenderSessionList(noColorTheme, nil, 0, 60, 10, testNow))
}

func TestRenderSessionListContent(t *testing.T) {
	out := ansi.Strip(RenderSessionList(noColorTheme, testSessions(), 0, 80, 40, testNow))
	for _, want := range []string{"› Fix the login bug", "◐ in progress · Running tests…", "now",
		"• Deploy api to production", "◆ needs input · Waiting for deploy approval", "3m",
		"✗ error", "5h", "○ idle", "2d", "Untitled session", "idle · archived", "Jan 2", "2025-06-01"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
}

// The selected session is always visible, and the list never exceeds its
// height.
func TestRenderSessionListScroll(t *testing.T) {
	var sessions []protocol.SessionSummary
	for i := 0; i < 50; i++ {
		sessions = append(sessions, protocol.SessionSummary{Title: fmt.Sprintf("session %02d", i), ModifiedAt: ago(time.Minute)})
	}
	for _, h := range []int{1, 2, 3, 7, 20} {
		for sel := 0; sel < len(sessions); sel += 7 {
			out := RenderSessionList(noColorTheme, sessions, sel, 40, h, testNow)
			if n := strings.Count(out, "\n") + 1; n > h {
				t.Fatalf("h=%d: %d lines", h, n)
			}
			if !strings.Contains(ansi.Strip(out), fmt.Sprintf("session %02d", sel)) {
				t.Fatalf("h=%d sel=%d: selection not visible:\n%s", h, sel, ansi.Strip(out))
			}
		}
	}
}

func TestRenderSessionListWidths(t *testing.T) {
	for _, th := range []Theme{noColorTheme, colorTheme} {
		for w := 1; w <= 250; w += 4 {
			checkScreen(t, th, RenderSessionList(th, testSessions(), 3, w, 30, testNow), w)
		}
	}
}

func TestRenderSessionListHostile(t *testing.T) {
	evil := "\x1b]52;c;cm0=\x07\x1b[2Jevil\r\u202e\x9b31m\nsecond line"
	sessions := []protocol.SessionSummary{{Title: evil, Activity: ptr(evil), ModifiedAt: evil}}
	for _, th := range []Theme{noColorTheme, colorTheme} {
		out := RenderSessionList(th, sessions, 0, 60, 10, testNow)
		checkScreen(t, th, out, 60)
		if strings.Count(out, "\n") != 1 {
			t.Errorf("a newline in a title grew the row:\n%s", ansi.Strip(out))
		}
		if strings.Contains(ansi.Strip(out), "52;c") {
			t.Error("payload visible")
		}
	}
}

func TestRelativeAge(t *testing.T) {
	tests := []struct {
		ts   string
		want string
	}{
		{ago(0), "now"},
		{ago(42 * time.Second), "42s"},
		{ago(5 * time.Minute), "5m"},
		{ago(3 * time.Hour), "3h"},
		{ago(49 * time.Hour), "2d"},
		{ago(30 * 24 * time.Hour), "Oct 30"},
		{"2024-02-29T12:00:00.123Z", "2024-02-29"},
		{"not a time", ""},
	}
	for _, tc := range tests {
		if got := RelativeAge(tc.ts, testNow); got != tc.want {
			t.Errorf("RelativeAge(%q) = %q, want %q", tc.ts, got, tc.want)
		}
	}
}

func TestSessionBadge(t *testing.T) {
	tests := []struct {
		s    protocol.SessionStatus
		want string
	}{
		{protocol.SessionStatusIdle, "idle"},
		{protocol.SessionStatusInProgress, "in progress"},
		{protocol.SessionStatusInputNeeded, "needs input"},
		{protocol.SessionStatusError | protocol.SessionStatusInProgress, "error"},
		{protocol.SessionStatusInputNeeded | protocol.SessionStatusError, "needs input"},
		{protocol.SessionStatusIsRead, "idle"},
	}
	for _, tc := range tests {
		if got := SessionBadge(noColorTheme, tc.s).Label; got != tc.want {
			t.Errorf("SessionBadge(%d) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
