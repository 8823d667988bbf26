// Package tmuxtest runs a real program in a real terminal (a detached tmux
// server) for end-to-end tests, and reads its screen the way a person would.
//
// Every Session gets its own tmux server on a private socket (tmux -L), so
// parallel tests and a developer's own tmux never see each other, and the
// server is killed in t.Cleanup. The server starts with a throwaway config:
// no status line (the pane is the whole window), no escape delay (so "Escape"
// arrives as a key at once), and remain-on-exit (so a crashed program's last
// screen can still be read).
//
// Session methods call t.Fatal on tmux failures, so call them from the test
// goroutine only.
//
// Without tmux the tests skip, unless CI=true, where a missing tmux is a
// broken runner and fails the test.
package tmuxtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Options describe the terminal and the program to run in it.
type Options struct {
	Width, Height int      // terminal size; 80×24 when zero
	Cmd           []string // program and arguments, run directly (no shell)
	Env           []string // extra "KEY=value" entries for the program
	Dir           string   // working directory; the test's temp dir when empty
	// Term is TERM inside the terminal; "tmux-256color" when empty. Set
	// NO_COLOR=1 in Env to test colourless output.
	Term string
}

// Session is one program running in one tmux server.
type Session struct {
	t      testing.TB
	socket string
	target string
	tmux   string
	w, h   int
	// statusFile receives the program's exit status when it exits.
	statusFile string
}

// DefaultPoll is how often WaitFor re-reads the screen.
const DefaultPoll = 20 * time.Millisecond

var counter atomic.Int64

// Start launches opts.Cmd in a fresh detached tmux server and registers
// cleanup that kills the server (logging the last screen if the test failed).
func Start(t testing.TB, opts Options) *Session {
	t.Helper()
	tmux := requireTmux(t)
	if len(opts.Cmd) == 0 {
		t.Fatal("tmuxtest.Start: Options.Cmd is empty")
	}
	if opts.Width <= 0 {
		opts.Width = 80
	}
	if opts.Height <= 0 {
		opts.Height = 24
	}
	if opts.Term == "" {
		opts.Term = "tmux-256color"
	}
	dir := opts.Dir
	if dir == "" {
		dir = t.TempDir()
	}
	// Socket names live in /tmp/tmux-UID/; keep them short and unique per
	// process and per session.
	s := &Session{
		t:      t,
		socket: fmt.Sprintf("tt%d-%d", os.Getpid(), counter.Add(1)),
		target: "main",
		tmux:   tmux,
		w:      opts.Width,
		h:      opts.Height,
	}
	conf := filepath.Join(t.TempDir(), "tmux.conf")
	confText := strings.Join([]string{
		"set -g status off",
		"set -sg escape-time 0",
		"set -g remain-on-exit on",
		"set -g history-limit 5000",
		// Accept OSC 52 from the program as a paste buffer, so a test can
		// see (Buffers) whether anything wrote the clipboard.
		"set -s set-clipboard on",
		"set -g default-terminal " + strconv.Quote(opts.Term),
		"",
	}, "\n")
	if err := os.WriteFile(conf, []byte(confText), 0o600); err != nil {
		t.Fatalf("tmuxtest: write config: %v", err)
	}
	t.Cleanup(s.close)

	args := []string{"-f", conf, "new-session", "-d", "-s", s.target,
		"-x", strconv.Itoa(opts.Width), "-y", strconv.Itoa(opts.Height), "-c", dir}
	for _, e := range opts.Env {
		args = append(args, "-e", e)
	}
	// The program runs under a small sh wrapper that writes its exit status
	// to a file once it has exited: tmux's own pane_dead_status is not
	// reliable (tmux 3.3a can mark a pane dead before it reaps the process,
	// and then never report a status), and WaitExit must not guess.
	s.statusFile = filepath.Join(t.TempDir(), "exit-status")
	args = append(args, "--", "sh", "-c",
		`"$@"; s=$?; printf '%d' "$s" > "$0.tmp" && mv "$0.tmp" "$0"; exit "$s"`,
		s.statusFile)
	args = append(args, opts.Cmd...)
	if _, err := s.run(args...); err != nil {
		t.Fatalf("tmuxtest: start %q: %v", opts.Cmd, err)
	}
	return s
}

func requireTmux(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tmuxtest: tmux not found on PATH (%v); CI must provide it: apt-get install tmux", err)
		}
		t.Skipf("tmuxtest: tmux not found on PATH (%v); install tmux to run end-to-end tests", err)
	}
	return path
}

// run executes one tmux command against this session's server. The server
// environment is ours minus TMUX, so a developer running tests inside tmux
// does not end up talking to their own server.
func (s *Session) run(args ...string) (string, error) {
	// -u and a UTF-8 LC_CTYPE: without them tmux draws every non-ASCII
	// cell as "_" and measures widths with the C locale's tables.
	cmd := exec.Command(s.tmux, append([]string{"-u", "-L", s.socket}, args...)...)
	cmd.Env = withUTF8(withoutTMUX(os.Environ()))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

func withoutTMUX(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "TMUX=") && !strings.HasPrefix(e, "TMUX_PANE=") {
			out = append(out, e)
		}
	}
	return out
}

func withUTF8(env []string) []string {
	for _, name := range []string{"LC_ALL=", "LC_CTYPE=", "LANG="} {
		for _, e := range env {
			if v, ok := strings.CutPrefix(e, name); ok && v != "" {
				v = strings.ToLower(v)
				if strings.Contains(v, "utf-8") || strings.Contains(v, "utf8") {
					return env
				}
				// The first set variable decides the locale, and it is
				// not UTF-8: override the character type only.
				return append(env, "LC_CTYPE=C.UTF-8", "LC_ALL=")
			}
		}
	}
	return append(env, "LC_CTYPE=C.UTF-8")
}

func (s *Session) close() {
	if t, ok := s.t.(interface{ Failed() bool }); ok && t.Failed() {
		if screen, err := s.run("capture-pane", "-p", "-t", s.target); err == nil {
			s.t.Logf("tmuxtest: last screen (%dx%d):\n%s", s.w, s.h, frame(screen))
		}
	}
	// The server may already be gone; nothing useful to do about an error.
	_, _ = s.run("kill-server")
}

// frame draws a box around a screen so trailing spaces and empty lines are
// visible in test logs.
func frame(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("│")
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}

// SendKeys sends keys with tmux send-keys: tmux key names ("Enter",
// "Escape", "C-c", "Up", "BTab", "M-Enter") or strings typed character by
// character ("hello").
func (s *Session) SendKeys(keys ...string) {
	s.t.Helper()
	if _, err := s.run(append([]string{"send-keys", "-t", s.target}, keys...)...); err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
}

// SendText types text literally: no key names are interpreted, so "Enter"
// arrives as five letters.
func (s *Session) SendText(text string) {
	s.t.Helper()
	if _, err := s.run("send-keys", "-t", s.target, "-l", "--", text); err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
}

// Paste pastes text into the pane as a terminal paste: bracketed (one
// paste event) when the program asked for bracketed paste, as Bubble Tea
// programs do, rather than one key per character as SendText types it.
// It is what a user does with a long URL, and under the race detector
// typing a few hundred characters one key at a time takes longer than the
// waits allow.
func (s *Session) Paste(text string) {
	s.t.Helper()
	const buf = "tmuxtest-paste"
	if _, err := s.run("set-buffer", "-b", buf, "--", text); err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
	if _, err := s.run("paste-buffer", "-p", "-d", "-b", buf, "-t", s.target); err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
}

// Capture returns the visible screen as plain text, one line per row with
// trailing spaces trimmed (tmux's own rendering).
func (s *Session) Capture() string {
	s.t.Helper()
	out, err := s.capture(false)
	if err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
	return out
}

// CaptureANSI returns the visible screen with colours and attributes as SGR
// escape sequences (capture-pane -e), for tests about styling.
func (s *Session) CaptureANSI() string {
	s.t.Helper()
	out, err := s.capture(true)
	if err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
	return out
}

func (s *Session) capture(ansi bool) (string, error) {
	args := []string{"capture-pane", "-p", "-t", s.target}
	if ansi {
		args = append(args, "-e")
	}
	return s.run(args...)
}

// PaneTitle is the pane's title as the program left it (OSC 0/2 set it),
// for tests that no text retitled the terminal.
func (s *Session) PaneTitle() string {
	s.t.Helper()
	out, err := s.run("display-message", "-p", "-t", s.target, "#{pane_title}")
	if err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
	return strings.TrimSuffix(out, "\n")
}

// Buffers lists tmux's paste buffers, one line each; with the server's
// set-clipboard on, a clipboard write (OSC 52) by the program makes one.
func (s *Session) Buffers() string {
	s.t.Helper()
	out, err := s.run("list-buffers")
	if err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
	return out
}

// WaitFor polls the screen until it contains want, which is a string
// (substring match) or a *regexp.Regexp, and returns that screen. After
// timeout it returns the last screen and an error that shows it. Polling is
// how a person reads a terminal too; the timeout keeps a broken program from
// hanging the test.
func (s *Session) WaitFor(want any, timeout time.Duration) (string, error) {
	s.t.Helper()
	var match func(string) bool
	var desc string
	switch w := want.(type) {
	case string:
		match = func(screen string) bool { return strings.Contains(screen, w) }
		desc = strconv.Quote(w)
	case *regexp.Regexp:
		match = w.MatchString
		desc = "/" + w.String() + "/"
	default:
		return "", fmt.Errorf("tmuxtest: WaitFor wants a string or *regexp.Regexp, got %T", want)
	}
	screen, err := s.WaitForFunc(match, timeout)
	if err != nil {
		return screen, fmt.Errorf("waiting for %s: %w", desc, err)
	}
	return screen, nil
}

// ErrTimeout is wrapped by WaitFor and WaitForFunc when time runs out.
var ErrTimeout = errors.New("tmuxtest: timed out")

// WaitForFunc polls the screen until match accepts it.
func (s *Session) WaitForFunc(match func(screen string) bool, timeout time.Duration) (string, error) {
	s.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(DefaultPoll)
	defer tick.Stop()
	var screen string
	for {
		var err error
		screen, err = s.capture(false)
		if err != nil {
			return screen, err
		}
		if match(screen) {
			// The capture may have caught a frame half written (an
			// overlay's top over the old picture). Read once more: a
			// later screen that still matches is the settled one; a
			// state that has already passed keeps the first.
			if again, err := s.capture(false); err == nil && match(again) {
				return again, nil
			}
			return screen, nil
		}
		select {
		case <-deadline.C:
			return screen, fmt.Errorf("%w after %v; screen (%dx%d):\n%s", ErrTimeout, timeout, s.w, s.h, frame(screen))
		case <-tick.C:
		}
	}
}

// MustWaitFor is WaitFor that fails the test on timeout.
func (s *Session) MustWaitFor(want any, timeout time.Duration) string {
	s.t.Helper()
	screen, err := s.WaitFor(want, timeout)
	if err != nil {
		s.t.Fatal(err)
	}
	return screen
}

// Resize changes the terminal size; the program gets SIGWINCH.
func (s *Session) Resize(width, height int) {
	s.t.Helper()
	if _, err := s.run("resize-window", "-t", s.target, "-x", strconv.Itoa(width), "-y", strconv.Itoa(height)); err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
	s.w, s.h = width, height
}

// Size returns the pane's current size as tmux reports it.
func (s *Session) Size() (width, height int) {
	s.t.Helper()
	out, err := s.run("display-message", "-p", "-t", s.target, "#{pane_width} #{pane_height}")
	if err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
	if _, err := fmt.Sscan(out, &width, &height); err != nil {
		s.t.Fatalf("tmuxtest: parse size %q: %v", out, err)
	}
	return width, height
}

// Exited reports whether the program has exited and, if so, its exit status.
func (s *Session) Exited() (exited bool, status int) {
	s.t.Helper()
	b, err := os.ReadFile(s.statusFile)
	if errors.Is(err, os.ErrNotExist) {
		return false, 0
	}
	if err != nil {
		s.t.Fatalf("tmuxtest: read exit status: %v", err)
	}
	status, err = strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		s.t.Fatalf("tmuxtest: exit status file holds %q", b)
	}
	return true, status
}

// WaitExit waits for the program to exit and returns its exit status.
func (s *Session) WaitExit(timeout time.Duration) (int, error) {
	s.t.Helper()
	var status int
	_, err := s.WaitForFunc(func(string) bool {
		var done bool
		done, status = s.Exited()
		return done
	}, timeout)
	if err != nil {
		return 0, fmt.Errorf("waiting for the program to exit: %w", err)
	}
	return status, nil
}

var builds sync.Map // package path → *buildResult

type buildResult struct {
	once sync.Once
	path string
	err  error
}

// Build compiles the main package pkg (an import path such as
// "github.com/ahptui/ahptui", or a relative "./..." path resolved from the
// test's working directory) once per test process, with -race when the test
// binary has it, and returns the binary's path. Call RemoveBuilds from
// TestMain after m.Run to delete the binaries.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	v, _ := builds.LoadOrStore(pkg, &buildResult{})
	r := v.(*buildResult)
	r.once.Do(func() {
		dir, err := os.MkdirTemp("", "tmuxtest-bin-")
		if err != nil {
			r.err = err
			return
		}
		r.path = filepath.Join(dir, "app")
		args := []string{"build", "-o", r.path}
		if raceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, pkg)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			r.err = fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
		}
	})
	if r.err != nil {
		t.Fatalf("tmuxtest: %v", r.err)
	}
	return r.path
}

// RemoveBuilds deletes the binaries Build made in this process.
func RemoveBuilds() {
	builds.Range(func(k, v any) bool {
		if r := v.(*buildResult); r.path != "" {
			_ = os.RemoveAll(filepath.Dir(r.path))
		}
		builds.Delete(k)
		return true
	})
}

// CaptureJoined is the visible screen as plain text with the rows the
// terminal wrapped (a line longer than the screen, written without a
// break) joined into one line (capture-pane -J): what a selection of them
// copies.
func (s *Session) CaptureJoined() string {
	s.t.Helper()
	out, err := s.run("capture-pane", "-p", "-J", "-t", s.target)
	if err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
	return out
}

// RecordOutput starts copying every byte the program writes to the
// terminal, escape sequences included, to a file, and returns a function
// that reads what was written so far: for sequences tmux does not keep
// on its screen (it drops OSC 8 hyperlinks before 3.4).
func (s *Session) RecordOutput() func() string {
	s.t.Helper()
	file := filepath.Join(s.t.TempDir(), "output")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		s.t.Fatalf("tmuxtest: %v", err)
	}
	if _, err := s.run("pipe-pane", "-O", "-t", s.target, "cat >> "+strconv.Quote(file)); err != nil {
		s.t.Fatalf("tmuxtest: pipe-pane: %v", err)
	}
	return func() string {
		b, err := os.ReadFile(file)
		if err != nil {
			s.t.Fatalf("tmuxtest: %v", err)
		}
		return string(b)
	}
}
