package tmuxtest

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

const wait = 10 * time.Second

func TestMain(m *testing.M) {
	code := m.Run()
	RemoveBuilds()
	os.Exit(code)
}

func TestTypeAndRead(t *testing.T) {
	t.Parallel()
	s := Start(t, Options{Width: 60, Height: 10, Cmd: []string{"sh", "-c", `printf 'hello\n'; read x; printf 'got:%s\n' "$x"; read y`}})
	s.MustWaitFor("hello", wait)
	s.SendKeys("abc", "Enter")
	screen := s.MustWaitFor(regexp.MustCompile(`got:abc\b`), wait)
	if !strings.HasPrefix(screen, "hello\n") {
		t.Errorf("screen does not start with the program's output:\n%s", screen)
	}
}

func TestSendTextIsLiteral(t *testing.T) {
	t.Parallel()
	s := Start(t, Options{Cmd: []string{"sh", "-c", `read x; printf '[%s]\n' "$x"; read y`}})
	s.SendText("Enter C-c")
	s.SendKeys("Enter")
	s.MustWaitFor("[Enter C-c]", wait)
}

func TestEnvAndTerm(t *testing.T) {
	t.Parallel()
	s := Start(t, Options{
		Cmd: []string{"sh", "-c", `printf 'foo=%s term=%s\n' "$FOO" "$TERM"; read x`},
		Env: []string{"FOO=bar baz"},
	})
	s.MustWaitFor("foo=bar baz term=tmux-256color", wait)
}

func TestResize(t *testing.T) {
	t.Parallel()
	s := Start(t, Options{Width: 80, Height: 24, Cmd: []string{"sh", "-c", `while read x; do stty size; done`}})
	if w, h := s.Size(); w != 80 || h != 24 {
		t.Fatalf("Size() = %dx%d, want 80x24 (status line must be off)", w, h)
	}
	s.SendKeys("Enter")
	s.MustWaitFor("24 80", wait)
	s.Resize(100, 30)
	if w, h := s.Size(); w != 100 || h != 30 {
		t.Fatalf("after Resize, Size() = %dx%d, want 100x30", w, h)
	}
	s.SendKeys("Enter")
	s.MustWaitFor("30 100", wait)
}

func TestCaptureANSI(t *testing.T) {
	t.Parallel()
	s := Start(t, Options{Cmd: []string{"sh", "-c", `printf '\033[1;31mRED\033[0m plain\n'; read x`}})
	s.MustWaitFor("RED plain", wait)
	if plain := s.Capture(); strings.Contains(plain, "\x1b") {
		t.Errorf("Capture() has escape sequences: %q", plain)
	}
	if ansi := s.CaptureANSI(); !strings.Contains(ansi, "\x1b[") || !strings.Contains(ansi, "RED") {
		t.Errorf("CaptureANSI() lost the styling: %q", ansi)
	}
}

func TestWaitForTimesOut(t *testing.T) {
	t.Parallel()
	s := Start(t, Options{Cmd: []string{"sh", "-c", `printf 'only this\n'; read x`}})
	s.MustWaitFor("only this", wait)
	start := time.Now()
	screen, err := s.WaitFor("never printed", 200*time.Millisecond)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("WaitFor error = %v, want ErrTimeout", err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("timeout took %v", elapsed)
	}
	if !strings.Contains(screen, "only this") || !strings.Contains(err.Error(), "only this") {
		t.Fatalf("timeout must return and show the last screen: %q / %v", screen, err)
	}
	if _, err := s.WaitFor(42, time.Second); err == nil {
		t.Fatal("WaitFor accepted an int pattern")
	}
}

func TestExitStatus(t *testing.T) {
	t.Parallel()
	s := Start(t, Options{Cmd: []string{"sh", "-c", `read x; printf 'bye\n'; exit 3`}})
	if done, _ := s.Exited(); done {
		t.Fatal("program reported exited before it could")
	}
	s.SendKeys("Enter")
	status, err := s.WaitExit(wait)
	if err != nil {
		t.Fatal(err)
	}
	if status != 3 {
		t.Fatalf("exit status = %d, want 3", status)
	}
	// remain-on-exit keeps the last screen readable.
	if !strings.Contains(s.Capture(), "bye") {
		t.Fatalf("last screen lost after exit:\n%s", s.Capture())
	}
}

// Sessions must not share a server: keys sent to one never reach another.
func TestSessionsAreIsolated(t *testing.T) {
	t.Parallel()
	a := Start(t, Options{Cmd: []string{"sh", "-c", `read x; printf 'A got %s\n' "$x"; read y`}})
	b := Start(t, Options{Cmd: []string{"sh", "-c", `read x; printf 'B got %s\n' "$x"; read y`}})
	if a.socket == b.socket {
		t.Fatal("two sessions share a socket")
	}
	a.SendKeys("one", "Enter")
	b.SendKeys("two", "Enter")
	a.MustWaitFor("A got one", wait)
	b.MustWaitFor("B got two", wait)
	if strings.Contains(a.Capture(), "two") {
		t.Fatal("keys leaked between sessions")
	}
}

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/go.mod", []byte("module example.com/hello\n\ngo 1.26\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"built and running\"); var s string; fmt.Scanln(&s) }\n"
	if err := os.WriteFile(dir+"/main.go", []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	bin := Build(t, ".")
	if again := Build(t, "."); again != bin {
		t.Fatalf("Build is not cached: %s then %s", bin, again)
	}
	s := Start(t, Options{Cmd: []string{bin}})
	s.MustWaitFor("built and running", wait)
}

// recorder is a testing.TB that records how Start gave up instead of
// failing or skipping the real test.
type recorder struct {
	testing.TB
	how, msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.how, r.msg = "fatal", fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Skipf(format string, args ...any) {
	r.how, r.msg = "skip", fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestMissingTmuxSkipsOrFailsOnCI(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, tc := range []struct{ ci, want string }{{"", "skip"}, {"false", "skip"}, {"true", "fatal"}} {
		t.Setenv("CI", tc.ci)
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			Start(r, Options{Cmd: []string{"true"}})
		}()
		<-done
		if r.how != tc.want || !strings.Contains(r.msg, "tmux not found") {
			t.Errorf("CI=%q: Start did %q (%s), want %s", tc.ci, r.how, r.msg, tc.want)
		}
	}
}

// Even when the tests run from a C locale, the terminal must show UTF-8
// text and measure wide runes as two cells, or every screen test with a
// glyph would be wrong. (tmux 3.3 copes on its own; older ones and other
// builds need the -u and LC_CTYPE that Session.run adds.)
func TestUTF8WithoutUTF8Locale(t *testing.T) {
	t.Setenv("LANG", "C")
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_CTYPE", "")
	s := Start(t, Options{Width: 20, Height: 4, Cmd: []string{"sh", "-c", `printf '日本語日本語日本語日本語|\n● ✓\n'; read x`}})
	screen := s.MustWaitFor("● ✓", wait)
	lines := strings.Split(screen, "\n")
	// 24 cells of CJK wrap after exactly 10 runes in a 20-column terminal.
	if lines[0] != "日本語日本語日本語日" || lines[1] != "本語|" {
		t.Fatalf("wide runes not measured as two cells:\n%s", screen)
	}
}
