package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// TestComposeInEditorInTerminal is issue 35 item 3 in a real terminal at
// 80x24 and 120x40: ctrl+g in the composer hands the terminal to
// $VISUAL, here a script that appends a line to the file it is given;
// the UI comes back with the draft replaced by what the editor saved,
// sends nothing by itself, and leaves no draft file behind.
func TestComposeInEditorInTerminal(t *testing.T) {
	t.Parallel()
	skipShort(t)
	eachSize(t, func(t *testing.T, w, h int) {
		dir := t.TempDir()
		editor := filepath.Join(dir, "append-a-line")
		script := "#!/bin/sh\nprintf '\\nsecond line from the editor\\n' >> \"$1\"\n"
		if err := os.WriteFile(editor, []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(dir, "tmp")
		if err := os.Mkdir(tmp, 0o700); err != nil {
			t.Fatal(err)
		}
		bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
		s := tmuxtest.Start(t, tmuxtest.Options{Width: w, Height: h, Env: []string{"VISUAL=" + editor, "TMPDIR=" + tmp},
			Cmd: append([]string{bin, "--no-browser", "--config-dir", t.TempDir()}, demoArgs(suiteVersion)...)})
		u := &user{t: t, s: s}
		screen := u.see("connected to the demo", func(s string) bool {
			return connectedTo(suiteVersion)(s) && strings.Contains(PanelText(s, "Sessions ("), "Demo: MCP")
		})
		u.openDemoSession(screen)
		u.see("the chat has the keys", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Chat.FocusComposer)) })
		u.hit(km.Chat.FocusComposer)
		u.see("composer focused", func(s string) bool { return strings.Contains(helpLine(s), hint(km.Composer.Send)) })
		u.s.SendText("first line typed here")
		u.see("the draft typed", func(s string) bool { return strings.Contains(s, "first line typed here") })
		u.hit(km.Composer.Editor)
		screen = u.see("the editor's line in the composer", func(s string) bool {
			return strings.Contains(s, "first line typed here") && strings.Contains(s, "second line from the editor")
		})
		if !strings.Contains(helpLine(screen), hint(km.Composer.Send)) {
			t.Errorf("the composer no longer has the keys after the editor:\n%s", screen)
		}
		if n, _ := os.ReadDir(tmp); len(n) != 0 {
			t.Errorf("the draft file was left behind: %v", n)
		}
		// Nothing went to the host: the demo chat is still empty.
		if !strings.Contains(screen, "No messages yet") {
			t.Errorf("the edited draft was sent without enter:\n%s", screen)
		}
	})
}
