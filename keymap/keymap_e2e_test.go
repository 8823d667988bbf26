package keymap

import (
	"fmt"
	"testing"
	"time"

	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// tmuxKeyNames maps bubbletea key names to what tmux send-keys calls them.
var tmuxKeyNames = map[string]string{
	"up": "Up", "down": "Down", "left": "Left", "right": "Right", "pgup": "PPage", "pgdown": "NPage",
	"home": "Home", "end": "End", "enter": "Enter", "esc": "Escape",
	"tab": "Tab", "shift+tab": "BTab", "space": "Space",
	"alt+enter": "M-Enter", "ctrl+j": "C-j", "ctrl+c": "C-c",
	"ctrl+r": "C-r", "ctrl+l": "C-l", "ctrl+s": "C-s", "ctrl+x": "C-x", "ctrl+d": "C-d", "ctrl+g": "C-g",
}

// Every key in the default map, pressed in a real terminal (tmux), must
// reach a bubbletea v2 program under exactly the name the binding uses.
// Unit tests only prove the names agree with bubbletea's own tables; this
// proves the bytes a terminal actually sends decode to them.
func TestKeysArriveFromARealTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds a program and runs it in tmux")
	}
	bin := tmuxtest.Build(t, "./testdata/keyecho")
	s := tmuxtest.Start(t, tmuxtest.Options{Width: 60, Height: 5, Cmd: []string{bin}})
	s.MustWaitFor("keyecho ready", 15*time.Second)

	km := DefaultKeyMap()
	km.Composer.Queue.SetEnabled(true)
	seen := map[string]bool{}
	n := 0
	for _, col := range km.FullHelp() {
		for _, b := range col {
			for _, k := range b.Keys() {
				if seen[k] {
					continue
				}
				seen[k] = true
				name, ok := tmuxKeyNames[k]
				if !ok {
					if len([]rune(k)) != 1 {
						t.Errorf("no tmux name for key %q; add it to tmuxKeyNames", k)
						continue
					}
					name = k
				}
				n++
				if len([]rune(k)) == 1 {
					s.SendText(name)
				} else {
					s.SendKeys(name)
				}
				want := fmt.Sprintf("key %d: [%s]", n, k)
				if _, err := s.WaitFor(want, 5*time.Second); err != nil {
					t.Fatalf("pressing %s (%s): %v", name, b.Help().Desc, err)
				}
			}
		}
	}
	s.SendKeys("F10")
	if _, err := s.WaitExit(5 * time.Second); err != nil {
		t.Fatal(err)
	}
}
