package e2e

import (
	"bufio"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// TestHostileHostInert runs the real ahptui in a real terminal against a
// host whose every text field carries every hostilehost.Escapes payload,
// raw and as a character reference (protocol/internal/hostilehost,
// served by its hostilehostd command), with colours and with NO_COLOR=1.
// The goldens check what the views render; this checks what a terminal
// does with it: nothing may hide text, reorder it, retitle the window,
// write the clipboard or leave a control character in a cell, while the
// poisoned text is on screen and the app still answers its keys.
func TestHostileHostInert(t *testing.T) {
	t.Parallel()
	skipShort(t)
	versionFixed(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	hostd := tmuxtest.Build(t, "github.com/ahptui/ahptui/protocol/internal/hostilehost/cmd/hostilehostd")
	for _, mode := range []struct {
		name string
		env  []string
	}{
		{"colour", nil},
		{"NO_COLOR", []string{"NO_COLOR=1"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			url := startHostileHost(t, hostd)
			s := tmuxtest.Start(t, tmuxtest.Options{
				Width: 120, Height: 40, Env: mode.env,
				Cmd: []string{bin, "--host", url, "--no-browser", "--config-dir", t.TempDir()},
			})
			u := &user{t: t, s: s}

			// The poisoned chat is on screen (so the test cannot pass on an
			// empty screen): the raw payloads' printable parts joined by
			// " | ", and the text the character references would conceal
			// or reverse. Only what both a safe and an unsafe build show
			// is awaited, so a broken sanitizer fails the checks below
			// rather than this wait.
			screen, err := s.WaitForFunc(func(s string) bool {
				return strings.Contains(statusLine(s), "connected") && !strings.Contains(statusLine(s), "disconnected") &&
					strings.Contains(s, "Session title |") && strings.Contains(s, "hidden") && strings.Contains(s, "gnp.exe")
			}, startTimeout)
			if err != nil {
				t.Fatalf("start-up: the hostile chat never showed: %v", err)
			}
			assertScreenInert(t, s, screen)
			// A safe build shows the references as the host typed them.
			for _, ref := range []string{"&#x1b;[8mhidden&#x1b;[0m", "&#x202e;gnp.exe", "&#x1b;]52;c;cm0gLXJmIH4K&#x7;"} {
				if !strings.Contains(screen, ref) {
					t.Errorf("the character reference %q is not shown as typed", ref)
				}
			}

			// The app still answers: ? opens the help overlay over the
			// poisoned screen, which stays inert, and q quits cleanly.
			u.hit(km.Global.Help)
			screen = u.see("help overlay", func(s string) bool { _, ok := Panel(s, "Keys"); return ok })
			assertScreenInert(t, s, screen)
			u.press("Escape")
			u.see("help overlay closed", func(s string) bool { _, ok := Panel(s, "Keys"); return !ok })
			u.hit(km.Global.Quit)
			if code, err := s.WaitExit(stepTimeout); err != nil || code != 0 {
				t.Fatalf("q did not quit cleanly: status %d, %v", code, err)
			}
		})
	}
}

// startHostileHost runs the hostilehostd binary (with args) and returns
// the URL it serves. The host lives as long as the test: closing its stdin in
// cleanup ends it.
func startHostileHost(t *testing.T, bin string, args ...string) string {
	t.Helper()
	_, stdout := startStdinHost(t, bin, args...)
	// The first line is the URL; ReadString returns as soon as the host
	// prints it, or with an error if the host dies first.
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ws://127.0.0.1:") {
		t.Fatalf("hostilehostd printed %q, not its URL: %v", line, err)
	}
	return strings.TrimSpace(line)
}

// startStdinHost starts one of the test hosts that live as long as their
// standard input (hostilehostd, trustaskd): closing it in cleanup ends
// the host, and the test reads what it prints from the returned stdout.
func startStdinHost(t *testing.T, bin string, args ...string) (io.WriteCloser, io.Reader) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	return stdin, stdout
}

// sgrSeq is one SGR sequence in capture-pane -e output.
var sgrSeq = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

// assertScreenInert checks the terminal's state after the app drew
// screen: what tmux holds in its cells and what the payloads would have
// changed had they reached the terminal.
func assertScreenInert(t *testing.T, s *tmuxtest.Session, screen string) {
	t.Helper()
	// No control character or invisible bidi/tag character in a cell: a
	// raw control that reached the pane, or a bidi override that would
	// reorder the text after it.
	for i, r := range screen {
		if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || invisibleRune(r)) {
			lo := max(0, i-40)
			t.Errorf("the screen holds %U: …%q…", r, screen[lo:min(len(screen), i+40)])
		}
	}
	// The cells' attributes: tmux reports them as SGR only, so anything
	// else is a sequence that reached a cell, and conceal (SGR 8) would
	// hide the text after it.
	styled := s.CaptureANSI()
	// (C1 CSI is a control, caught above; U+FFFD is how Sanitize shows
	// invalid UTF-8, so only ESC is looked for here.)
	if rest := sgrSeq.ReplaceAllString(styled, ""); strings.IndexByte(rest, 0x1b) >= 0 {
		i := strings.IndexByte(rest, 0x1b)
		t.Errorf("a non-SGR escape sequence is on screen: …%q…", rest[i:min(len(rest), i+40)])
	}
	for _, m := range sgrSeq.FindAllStringSubmatch(styled, -1) {
		if concealed(m[1]) {
			t.Errorf("text is concealed (SGR %s): a payload hid what follows it", m[1])
		}
	}
	if title := s.PaneTitle(); strings.Contains(title, "pwned") || strings.Contains(title, "title") {
		t.Errorf("a payload retitled the terminal: %q", title)
	}
	if bufs := s.Buffers(); bufs != "" {
		t.Errorf("a payload wrote the clipboard: %q", bufs)
	}
	if strings.Contains(styled, "evil.example\x1b") || strings.Contains(styled, "\x1b]8;") {
		t.Error("a payload opened a hyperlink")
	}
}

// concealed reports whether SGR parameters params set conceal (8), not
// counting an 8 that is a colour argument of 38/48/58.
func concealed(params string) bool {
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' })
	for i := 0; i < len(ps); i++ {
		p := ps[i]
		if strings.Contains(p, ":") {
			continue // colon form carries its colour arguments inside
		}
		n, _ := strconv.Atoi(p)
		switch n {
		case 8:
			return true
		case 38, 48, 58:
			if i+1 < len(ps) && ps[i+1] == "5" {
				i += 2
			} else if i+1 < len(ps) && ps[i+1] == "2" {
				i += 4
			}
		}
	}
	return false
}

// invisibleRune: the bidi controls, separators and tag characters
// views.Sanitize removes (hostilehost.Escapes carries each, raw and as a
// character reference).
func invisibleRune(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x2028 && r <= 0x202e) ||
		(r >= 0x2066 && r <= 0x2069) || (r >= 0xe0000 && r <= 0xe007f)
}
