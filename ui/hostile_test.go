package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

// TestHostileStatesRender renders the states the recorded demohost
// sessions ended with — MCP servers, plugins, tool calls, reasoning,
// streamed markdown, input requests — after the hostile host poisoned every
// text field with terminal control sequences (../testdata/hostile, made by
// protocol/internal/hostilehost). The screen must hold nothing that moves
// the cursor or changes the terminal: no escape sequence but SGR
// attributes, no C0 or C1 control but newline; and every line keeps the
// screen's width (screen checks that).
func TestHostileStatesRender(t *testing.T) {
	for _, name := range []string{"demo-stream", "demo-ask", "demo-reconnect"} {
		t.Run(name, func(t *testing.T) {
			var root protocol.RootState
			var sess protocol.SessionState
			var chat protocol.ChatState
			readTainted(t, "tainted-"+name+"-root.json", &root)
			readTainted(t, "tainted-"+name+"-session.json", &sess)
			readTainted(t, "tainted-"+name+"-chat.json", &chat)
			if len(sess.Customizations) == 0 || chat.Title == "" {
				t.Fatalf("tainted states lost their content (customizations %d, chat title %q)", len(sess.Customizations), chat.Title)
			}
			for _, sz := range goldenSizes {
				for _, noColor := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/noColor=%v", sz.name, noColor), func(t *testing.T) {
						m := fxModel(chat)
						m.cfg.NoColor = noColor
						m.applyTheme()
						m.root = root
						m.sess = sess
						m.sessions.list = []protocol.SessionSummary{{Provider: sess.Provider, Title: sess.Title, Status: sess.Status,
							Activity: sess.Activity, Resource: fxSession, CreatedAt: "2026-01-02T14:00:00.000Z", ModifiedAt: "2026-01-02T15:02:00.000Z"}}
						m.status.text = chat.Title
						out := screen(t, m, sz.w, sz.h)
						assertInert(t, out)
						if !strings.Contains(ansi.Strip(out), " | ") {
							t.Fatal("no poisoned text reached the screen; the test would prove nothing")
						}
					})
				}
			}
		})
	}
}

func readTainted(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", file))
	if err != nil {
		t.Fatalf("%v (regenerate: go test ./protocol/internal/hostilehost -run TestHostileCorpus -record)", err)
	}
	if !strings.Contains(string(data), `\u001b[2J`) {
		t.Fatalf("%s carries no escape payload; the test would prove nothing", file)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// assertInert fails on anything in out a terminal would act on besides
// SGR attributes and newlines.
func assertInert(t *testing.T, out string) {
	t.Helper()
	rest := sgr.ReplaceAllString(out, "")
	for i, r := range rest {
		if r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || invisibleControl(r) {
			lo := max(0, i-40)
			t.Fatalf("screen carries control character %U at byte %d: …%q…", r, i, rest[lo:min(len(rest), i+40)])
		}
	}
}

// invisibleControl: the bidi controls, separators and tag characters
// views.Sanitize removes (hostilehost.Escapes carries each, raw and as a
// character reference).
func invisibleControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x2028 && r <= 0x202e) ||
		(r >= 0x2066 && r <= 0x2069) || (r >= 0xe0000 && r <= 0xe007f)
}
