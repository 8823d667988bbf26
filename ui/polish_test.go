package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// However narrow the terminal, the help line keeps "? help": the view's
// own hints give way first.
func TestHelpLineKeepsHelp(t *testing.T) {
	for _, w := range []int{40, 60, 80} {
		for _, f := range []focus{focusSessions, focusChat, focusMCP} {
			m := fxModel(fxChatState(fxAuthPart()))
			m.focus = f
			m.itemSel = "tc5"
			m.resize(w, 30)
			line := ansi.Strip(m.helpLine())
			if !strings.Contains(line, "? help") || ansi.StringWidth(line) > w {
				t.Errorf("width %d focus %v: help line %q", w, f, line)
			}
		}
	}
}
