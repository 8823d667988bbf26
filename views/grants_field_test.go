package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestFieldLineShowsCursor: the paste field drew a block after the tail
// of its text whatever the cursor did (issue 22, item 2). The window
// holds the cursor: a block at the end, or the cell under it reversed,
// never wider than asked.
func TestFieldLineShowsCursor(t *testing.T) {
	th := NewTheme(true, false)
	long := "http://127.0.0.1:8765/callback?code=…&state=…&iss=http%3A%2F%2F127.0.0.1%3A4001"
	for _, tc := range []struct {
		name      string
		s         string
		tail, w   int
		want      string // the stripped line holds it
		reversed  string // the cell drawn reversed, "" for the block
		wantBlock bool
	}{
		{"end, short", "http://x/cb", 0, 40, "http://x/cb█", "", true},
		{"start, short", "http://x/cb", 11, 40, "http://x/cb", "h", false},
		{"middle, short", "http://x/cb", 2, 40, "http://x/cb", "c", false},
		{"end, long", long, 0, 30, "A4001█", "", true},
		{"start, long", long, ansi.StringWidth(long), 30, "http://127.0.0.1:8765/callbac…", "h", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := fieldLine(th, tc.s, tc.tail, tc.w)
			plain := ansi.Strip(out)
			if w := ansi.StringWidth(plain); w > tc.w {
				t.Fatalf("%q is %d cells, want at most %d", plain, w, tc.w)
			}
			if !strings.Contains(plain, tc.want) {
				t.Fatalf("%q does not hold %q", plain, tc.want)
			}
			if tc.wantBlock != strings.HasSuffix(plain, "█") {
				t.Fatalf("%q: block at the end %v, want %v", plain, !tc.wantBlock, tc.wantBlock)
			}
			if tc.reversed != "" && !strings.Contains(out, "\x1b[7m"+tc.reversed) {
				t.Fatalf("%q: the cursor's cell %q is not reversed", out, tc.reversed)
			}
		})
	}
}
