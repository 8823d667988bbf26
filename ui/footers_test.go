package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/views"
)

// TestFooterGolden is issue 36 item 13: every context's footer, as the
// app fits it (views.FitShortHelp over keymap.Help), at 80 and 120
// columns, against testdata/TestFooterGolden/<context>/<width>.golden
// (go test ./ui -run TestFooterGolden -update rewrites them). A hint
// that changes shows up here as a diff to read before accepting it.
func TestFooterGolden(t *testing.T) {
	m := fxModel(fxChatState())
	for _, ctx := range keymap.Contexts {
		for _, w := range []int{80, 120} {
			t.Run(fmt.Sprintf("%s/%d", ctx, w), func(t *testing.T) {
				h := m.help
				h.SetWidth(w) // as resize sets it
				line := ansi.Strip(views.FitShortHelp(h, m.keys.Global, m.keys.Help(ctx).ShortHelp(), w))
				if lw := ansi.StringWidth(line); lw > w {
					t.Errorf("the footer is %d cells wide at %d: %q", lw, w, line)
				}
				golden.RequireEqual(t, line+"\n")
			})
		}
	}
}

// TestHelpScreenGolden is issue 36 item 13's ? per context: the overlay
// opened from each context, its keys first, at 80x24 and 120x40.
func TestHelpScreenGolden(t *testing.T) {
	m := fxModel(fxChatState())
	for _, ctx := range keymap.Contexts {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s/%dx%d", ctx, sz[0], sz[1]), func(t *testing.T) {
				h := m.help
				h.SetWidth(sz[0])
				out := ansi.Strip(views.RenderFullHelp(m.th, h, m.keys, ctx, sz[0], sz[1], 0))
				for i, l := range strings.Split(out, "\n") {
					if lw := ansi.StringWidth(l); lw > sz[0] {
						t.Errorf("row %d is %d cells wide: %q", i, lw, l)
					}
				}
				golden.RequireEqual(t, out+"\n")
			})
		}
	}
}
