package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ahptui/ahptui/internal/capimock"
)

// cliRun is one finished command of the scriptable twin (issue 24).
type cliRun struct {
	code           int
	stdout, stderr string
}

// cliCmd builds `ahptui args...` against the host the suite's UI uses
// (through the recorder), with a config directory of its own: VS Code's
// host sends a client id's frames to its newest connection only.
func (s *suite) cliCmd(ctx context.Context, t *testing.T, args ...string) (*exec.Cmd, *syncBuf, *syncBuf) {
	t.Helper()
	cmd := exec.CommandContext(ctx, s.bin, append(args, "--host", s.rec.URL, "--config-dir", t.TempDir())...)
	cmd.Dir = s.cwd
	cmd.Env = append(cmd.Environ(), "NO_COLOR=1")
	var out, errOut syncBuf
	cmd.Stdout, cmd.Stderr = &out, &errOut
	return cmd, &out, &errOut
}

// cli runs one command and checks its exit code.
func (s *suite) cli(t *testing.T, code int, args ...string) cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
	defer cancel()
	cmd, out, errOut := s.cliCmd(ctx, t, args...)
	return s.finish(t, code, args, cmd.Run(), out, errOut)
}

func (s *suite) finish(t *testing.T, code int, args []string, err error, out, errOut *syncBuf) cliRun {
	t.Helper()
	r := cliRun{stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", args, err)
	}
	if r.code != code {
		s.rec.Dump()
		t.Fatalf("ahptui %v: exit %d, want %d\nstdout %s\nstderr %s", args, r.code, code, r.stdout, r.stderr)
	}
	return r
}

// uiSession is the session the suite's UI created: the channel of its
// createSession. (VS Code's host lists a session only once it has run.)
func (s *suite) uiSession(t *testing.T) string {
	t.Helper()
	for _, f := range s.rec.AllFrames("→host") {
		var m struct {
			Method string
			Params struct{ Channel string }
		}
		if json.Unmarshal([]byte(f), &m) == nil && m.Method == "createSession" && m.Params.Channel != "" {
			return m.Params.Channel
		}
	}
	s.rec.Dump()
	t.Fatal("no createSession sent")
	return ""
}

// mcpVerb runs `mcp VERB echo --session S --json` and returns its JSON.
func (s *suite) mcpVerb(t *testing.T, verb, session string) map[string]any {
	t.Helper()
	r := s.cli(t, 0, "mcp", verb, "echo", "--session", session, "--json")
	var got map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("mcp %s --json: %v\n%s", verb, err, r.stdout)
	}
	return got
}

// cliBeforeFirstMessage: status reads the host, and `mcp start` in the
// session that has not run yet reports the start as requested (VS Code's
// host starts it with the first message) instead of waiting for good.
func (s *suite) cliBeforeFirstMessage(t *testing.T) {
	t.Helper()
	st := s.cli(t, 0, "status")
	for _, want := range []string{"Protocol: AHP " + hostVersion, "Sessions:"} {
		if !strings.Contains(st.stdout, want) {
			t.Fatalf("status lacks %q:\n%s", want, st.stdout)
		}
	}
	session := s.uiSession(t)
	got := s.mcpVerb(t, "start", session)
	if got["state"] != "starting" || got["startRequested"] != true {
		s.rec.Dump()
		t.Fatalf("mcp start before the first message: want starting, startRequested; got %v", got)
	}
	txt := s.cli(t, 0, "mcp", "list", "--session", session)
	if !strings.Contains(txt.stdout, "echo") {
		t.Fatalf("mcp list lacks echo:\n%s", txt.stdout)
	}
}

// cliAfterTurns: mcp stop and start settle on the running session; send
// streams the mock's answer; and `watch --until input`, started before a
// send that asks the user, ends when the ask_user input request arrives.
// The request is left for the UI to answer.
func (s *suite) cliAfterTurns(t *testing.T) {
	t.Helper()
	session := s.uiSession(t)
	var ss []struct{ Session string }
	if r := s.cli(t, 0, "sessions", "--json"); json.Unmarshal([]byte(r.stdout), &ss) != nil || len(ss) != 1 || ss[0].Session != session {
		t.Fatalf("sessions --json: want %s only:\n%s", session, r.stdout)
	}
	if st := s.cli(t, 0, "status"); !strings.Contains(st.stdout, session) {
		t.Fatalf("status does not list %s once it has run:\n%s", session, st.stdout)
	}
	if got := s.mcpVerb(t, "stop", session); got["state"] != "stopped" {
		t.Fatalf("mcp stop: %v", got)
	}
	if got := s.mcpVerb(t, "start", session); got["state"] != "ready" || got["startRequested"] == true {
		t.Fatalf("mcp start: want ready, got %v", got)
	}
	r := s.cli(t, 0, "send", session, "from the command line")
	if !strings.Contains(r.stdout, capimock.Reply) {
		t.Fatalf("send did not stream the answer:\n%s", r.stdout)
	}
	ctx, cancel := context.WithTimeout(t.Context(), stepTimeout)
	defer cancel()
	wargs := []string{"watch", session, "--until", "input"}
	watch, wout, werr := s.cliCmd(ctx, t, wargs...)
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	// watch has subscribed once it printed the session's state.
	if _, err := s.waitOut(ctx, wout); err != nil {
		t.Fatalf("watch printed nothing: %v\n%s", err, werr)
	}
	r = s.cli(t, 5, "send", session, capimock.PromptAsk)
	if !strings.Contains(r.stdout, "Which colour") {
		t.Fatalf("send did not say what waits:\n%s", r.stdout)
	}
	s.finish(t, 0, wargs, watch.Wait(), wout, werr)
	// It ended on the batch that brought the request: its waiting event
	// names the input, and nothing follows but that batch's status.
	evs := strings.Split(strings.TrimSpace(wout.String()), "\n")
	var seen bool
	for i, l := range evs {
		var ev struct {
			Type    string
			Waiting []struct{ Kind, Name string }
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("watch printed %q: %v", l, err)
		}
		if ev.Type == "waiting" && len(ev.Waiting) == 1 && ev.Waiting[0].Kind == "input" {
			seen = true
			if rest := evs[i+1:]; len(rest) > 1 || len(rest) == 1 && !strings.Contains(rest[0], `"status":"input-needed"`) {
				t.Fatalf("watch --until input went on after the input request:\n%s", wout)
			}
		}
	}
	if !seen {
		t.Fatalf("watch --until input ended without the input request waiting:\n%s", wout)
	}
}

// waitOut waits until the command has written a line to out.
func (s *suite) waitOut(ctx context.Context, out *syncBuf) (string, error) {
	for {
		if l, _, ok := strings.Cut(out.String(), "\n"); ok {
			return l, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// syncBuf is a buffer a running command writes while the test reads it.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
