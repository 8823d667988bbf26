package views

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// Our width arithmetic (lipgloss/x/ansi) must agree with a real terminal's,
// or a "60-column" status bar wraps onto a second row. Each line below is
// exactly width cells by our count; in a terminal that wide, each must
// occupy exactly one row and read back unchanged.
func TestWidthsAgreeWithARealTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: runs tmux")
	}
	for _, width := range []int{60, 100, 160} {
		t.Run(fmt.Sprintf("w%d", width), func(t *testing.T) {
			t.Parallel()
			var lines []string
			for _, th := range []Theme{NewTheme(true, false), NewTheme(false, true)} {
				for _, tc := range statusBarCases {
					lines = append(lines, RenderStatusBar(th, tc.sb, width))
				}
				for _, b := range themeAllBadges(th) {
					// Pad each badge with its own width so a glyph the
					// terminal draws wider pushes the line over.
					pad := width - ansi.StringWidth(b.Plain())
					lines = append(lines, b.String()+strings.Repeat(".", pad))
				}
			}
			file := filepath.Join(t.TempDir(), "screen.txt")
			content := strings.Join(lines, "\n") + "\nEND"
			if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			s := tmuxtest.Start(t, tmuxtest.Options{
				Width: width, Height: len(lines) + 2,
				Cmd: []string{"sh", "-c", `cat "$1"; read x`, "sh", file},
			})
			screen := s.MustWaitFor("END", 10*time.Second)
			rows := strings.Split(screen, "\n")
			for i, l := range lines {
				want := strings.TrimRight(ansi.Strip(l), " ")
				if i >= len(rows) || rows[i] != want {
					t.Fatalf("line %d wrapped or changed in a %d-column terminal:\nwant %q\nscreen:\n%s", i, width, want, screen)
				}
			}
			if rows[len(lines)] != "END" {
				t.Fatalf("lines took more rows than expected:\n%s", screen)
			}
		})
	}
}
