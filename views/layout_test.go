package views

import (
	"fmt"
	"testing"
)

func (l Layout) regions() map[string]Rect {
	return map[string]Rect{
		"sessions": l.Sessions, "chat": l.Chat, "mcp": l.MCP, "help": l.Help, "status": l.Status,
	}
}

// Every size, supported or not, must give rectangles that tile the screen:
// each cell belongs to exactly one region, nothing sticks out.
func TestComputeLayoutTilesScreen(t *testing.T) {
	for _, showMCP := range []bool{true, false} {
		for w := 0; w <= 250; w += 1 {
			for _, h := range []int{0, 1, 2, 3, 5, 6, 8, 10, 12, 24, 40, 80} {
				l := ComputeLayout(w, h, showMCP)
				checkTiling(t, l, fmt.Sprintf("%dx%d mcp=%v", w, h, showMCP))
			}
		}
	}
	checkTiling(t, ComputeLayout(-5, -5, true), "negative")
}

func checkTiling(t *testing.T, l Layout, name string) {
	t.Helper()
	regions := l.regions()
	for rn, r := range regions {
		if r.Empty() {
			if r != (Rect{}) {
				t.Fatalf("%s: hidden %s is not the zero Rect: %+v", name, rn, r)
			}
			continue
		}
		if r.X < 0 || r.Y < 0 || r.X+r.W > l.Width || r.Y+r.H > l.Height {
			t.Fatalf("%s: %s %+v outside %dx%d", name, rn, r, l.Width, l.Height)
		}
	}
	for y := 0; y < l.Height; y++ {
		for x := 0; x < l.Width; x++ {
			n := 0
			for _, r := range regions {
				if r.Contains(x, y) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%s: cell (%d,%d) is covered %d times: %+v", name, x, y, n, l)
			}
		}
	}
}

// From the smallest supported size up, every panel is there and usable.
func TestComputeLayoutSupportedSizes(t *testing.T) {
	for w := 60; w <= 250; w++ {
		for _, h := range []int{10, 16, 24, 50, 80} {
			for _, showMCP := range []bool{true, false} {
				l := ComputeLayout(w, h, showMCP)
				name := fmt.Sprintf("%dx%d mcp=%v", w, h, showMCP)
				if l.Status != (Rect{0, h - 1, w, 1}) {
					t.Fatalf("%s: status %+v not the bottom line", name, l.Status)
				}
				if l.Help != (Rect{0, h - 2, w, 1}) {
					t.Fatalf("%s: help %+v not just above the status bar", name, l.Help)
				}
				if l.Chat.W < MinChatWidth || l.Chat.H < MinChatHeight {
					t.Fatalf("%s: chat %+v below minimum %dx%d", name, l.Chat, MinChatWidth, MinChatHeight)
				}
				if l.Sessions.W < MinSessions || l.Sessions.H != l.Chat.H {
					t.Fatalf("%s: sessions %+v", name, l.Sessions)
				}
				if l.Sessions.X != 0 || l.Chat.X != l.Sessions.W {
					t.Fatalf("%s: sessions must be left of chat: %+v %+v", name, l.Sessions, l.Chat)
				}
				if !showMCP {
					if !l.MCP.Empty() || l.MCPBelow {
						t.Fatalf("%s: MCP shown although hidden: %+v", name, l.MCP)
					}
					continue
				}
				if l.MCP.Empty() {
					t.Fatalf("%s: MCP panel missing", name)
				}
				if narrow := w < NarrowWidth; l.MCPBelow != narrow {
					t.Fatalf("%s: MCPBelow = %v, want %v", name, l.MCPBelow, narrow)
				}
				if l.MCPBelow {
					if l.MCP.W != w || l.MCP.H < MinMCPBelow || l.MCP.Y != l.Chat.H {
						t.Fatalf("%s: collapsed MCP %+v", name, l.MCP)
					}
				} else if l.MCP.W < MinMCPWide || l.MCP.X != l.Chat.X+l.Chat.W {
					t.Fatalf("%s: MCP column %+v", name, l.MCP)
				}
			}
		}
	}
}

// The chat is what grows: a wider terminal never makes it narrower.
func TestComputeLayoutChatGrowsMonotonically(t *testing.T) {
	for _, showMCP := range []bool{true, false} {
		prev := 0
		for w := 60; w <= 250; w++ {
			l := ComputeLayout(w, 30, showMCP)
			// Moving the MCP panel beside the chat at NarrowWidth is the
			// one allowed step down.
			if l.Chat.W < prev && !(showMCP && w == NarrowWidth) {
				t.Fatalf("w=%d mcp=%v: chat width %d < %d at w-1", w, showMCP, l.Chat.W, prev)
			}
			prev = l.Chat.W
		}
	}
}

func TestRect(t *testing.T) {
	r := Rect{2, 3, 10, 4}
	if !r.Contains(2, 3) || !r.Contains(11, 6) || r.Contains(12, 3) || r.Contains(2, 7) {
		t.Error("Contains wrong at edges")
	}
	if got := r.Inset(1, 1); got != (Rect{3, 4, 8, 2}) {
		t.Errorf("Inset(1,1) = %+v", got)
	}
	if got := (Rect{0, 0, 1, 1}).Inset(1, 1); !got.Empty() {
		t.Errorf("over-inset must be empty: %+v", got)
	}
	if !r.Overlaps(Rect{11, 6, 5, 5}) || r.Overlaps(Rect{12, 3, 5, 5}) || r.Overlaps(Rect{}) {
		t.Error("Overlaps wrong")
	}
}

// BenchmarkComputeLayout: layout is recomputed on every resize and frame;
// budget 100 ns.
func BenchmarkComputeLayout(b *testing.B) {
	for b.Loop() {
		_ = ComputeLayout(160, 48, true)
	}
}

func ExampleComputeLayout() {
	for _, size := range [][2]int{{60, 24}, {100, 30}, {160, 48}, {250, 60}} {
		l := ComputeLayout(size[0], size[1], true)
		fmt.Printf("%dx%d sessions=%v chat=%v mcp=%v below=%v\n",
			size[0], size[1], l.Sessions, l.Chat, l.MCP, l.MCPBelow)
	}
	// Output:
	// 60x24 sessions={0 0 18 15} chat={18 0 42 15} mcp={0 15 60 7} below=true
	// 100x30 sessions={0 0 24 28} chat={24 0 48 28} mcp={72 0 28 28} below=false
	// 160x48 sessions={0 0 34 46} chat={34 0 87 46} mcp={121 0 39 46} below=false
	// 250x60 sessions={0 0 36 58} chat={36 0 170 58} mcp={206 0 44 58} below=false
}
