package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// TestResourcesSheetGolden: the resources sheet (A) at 80 and 120
// columns, in colour and without: the chat's reference attachments (one
// read, its text shown), its canvases by title (one still loading) and
// the session's annotations with their counts; hostile host text inert.
func TestResourcesSheetGolden(t *testing.T) {
	k := keymap.DefaultKeyMap()
	size, ct := int64(2300), "text/plain"
	att := func(label string) protocol.MessageAttachment {
		return protocol.MessageAttachment{Variant: protocol.MessageResourceAttachment{Label: label, URI: "x:/a", SizeHint: &size, ContentType: &ct}}
	}
	v := ResourcesView{
		Attachments: []protocol.MessageAttachment{att("build.log"), att("notes\x1b]0;pwned\x07.md")},
		Sel:         0, Reads: map[int]bool{0: true}, Reading: "build.log",
		Text:           "ok 1\nFAIL 2 \x1b[2Jcleared\x1b]52;c;cm0=\x07\nok 3\n",
		Canvases:       []CanvasRow{{URI: "ahp-canvas:/c1", Title: "Timings\x1b[31m", Extension: "Charts", Status: "3 runs", Loaded: true}, {URI: "ahp-canvas:/c2"}},
		HasAnnotations: true, AnnotationCount: 2, EntryCount: 3,
		Annotations: []AnnotationRow{{File: "a.go", Entries: 2, First: "Why\u202e 5 s?"}, {File: "b.go", Resolved: true, Entries: 1, First: "Nice."}},
	}
	for _, w := range []int{80, 120} {
		for _, c := range []struct {
			name string
			th   Theme
		}{{"resources", noColorTheme}, {"resources_color", colorTheme}} {
			out := RenderResources(c.th, k, v, min(w, 100), 30)
			checkScreen(t, c.th, out, w)
			checkGolden(t, c.name, w, out)
			for _, bad := range []string{"\x1b]0;", "\x1b]52", "\x1b[2J", "\u202e"} {
				if strings.Contains(out, bad) {
					t.Fatalf("%q reached the screen", bad)
				}
			}
			plain := ansi.Strip(out)
			for _, want := range []string{"▸ 📎 build.log · text/plain · 2.2 KiB · read", "Canvases (2)", "▣ Timings · Charts · 3 runs",
				"ahp-canvas:/c2 · loading…", "Annotations · 2 annotations, 3 entries", "✎ b.go · resolved · 1 entry · Nice.",
				"── build.log ──", "FAIL 2 cleared", "enter read it"} {
				if !strings.Contains(plain, want) {
					t.Errorf("%s at %d lacks %q:\n%s", c.name, w, want, plain)
				}
			}
		}
	}
	only := ansi.Strip(RenderResources(noColorTheme, k, ResourcesView{Canvases: v.Canvases[:1]}, 72, 24))
	if lines := strings.Split(only, "\n"); !strings.Contains(lines[1], "Canvases (1)") {
		t.Errorf("a sheet of canvases only does not start with them:\n%s", only)
	}
	empty := ansi.Strip(RenderResources(noColorTheme, k, ResourcesView{}, 72, 24))
	if !strings.Contains(empty, "Nothing here") || strings.Contains(empty, "enter read it") || strings.Contains(empty, "Canvases") {
		t.Errorf("an empty sheet:\n%s", empty)
	}
}
