package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

func manyChats(n int) []ChatRow {
	rows := make([]ChatRow, n)
	for i := range rows {
		rows[i] = ChatRow{Title: fmt.Sprintf("Chat %d", i), Origin: "fork", Status: protocol.SessionStatusIdle, Activity: "thinking"}
	}
	return rows
}

// BenchmarkChatSwitcher100k measures one frame of the chat switcher
// (c) over a session with 100,000 chats, the cursor in the middle, at
// 120×40. Budget: < 2 ms per frame: only the rows that fit are drawn (it
// drew every row, 0.75–0.9 s a frame).
func BenchmarkChatSwitcher100k(b *testing.B) {
	th, k, rows := NewTheme(true, false), keymap.DefaultKeyMap(), manyChats(100_000)
	b.ReportAllocs()
	for b.Loop() {
		if RenderChatSwitcher(th, k, rows, 50_000, true, true, true, 120, 40) == "" {
			b.Fatal("empty frame")
		}
	}
}

// TestChatSwitcherDrawsTheVisibleRows: the switcher drew every chat
// each frame. It draws the rows that fit, the same lines as before
// (the selected row in view, "↑ more" and "↓ more" where rows are cut),
// and a frame of 100k chats stays far under the old cost.
func TestChatSwitcherDrawsTheVisibleRows(t *testing.T) {
	th, k := NewTheme(true, false), keymap.DefaultKeyMap()
	rows := manyChats(100_000)
	for _, sel := range []int{0, 1, 50_000, 99_999} {
		out := ansi.Strip(RenderChatSwitcher(th, k, rows, sel, true, true, true, 120, 40))
		if n := len(strings.Split(out, "\n")); n > 40 {
			t.Fatalf("sel %d: %d lines, want at most 40", sel, n)
		}
		if !strings.Contains(out, fmt.Sprintf("▸ Chat %d", sel)) {
			t.Fatalf("sel %d: the selected row is not drawn:\n%s", sel, out)
		}
		if (sel > 1) != strings.Contains(out, "↑ more") || (sel < 99_999) != strings.Contains(out, "↓ more") {
			t.Fatalf("sel %d: the more marks are wrong:\n%s", sel, out)
		}
	}
	// A few rows draw whole, as they did.
	few := ansi.Strip(RenderChatSwitcher(th, k, manyChats(3), 1, true, true, true, 120, 40))
	if !strings.Contains(few, "▸ Chat 1") || !strings.Contains(few, "  Chat 2") || strings.Contains(few, "more") {
		t.Fatalf("three chats:\n%s", few)
	}
	res := testing.Benchmark(BenchmarkChatSwitcher100k)
	// The budget is 2 ms; the bound leaves room for a loaded machine and
	// -race, and is still far under the 750 ms of drawing every row.
	if per := time.Duration(res.NsPerOp()); per > 50*time.Millisecond {
		t.Fatalf("a frame of 100k chats takes %v", per)
	}
}
