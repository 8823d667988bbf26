package open

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/host/dial"
)

// TestStartMakesTheDirectoryOurs: the opening creates the config
// directory owner-only, claims the installation's client id, and a
// second run while the first holds it gets an id of its own.
func TestStartMakesTheDirectoryOurs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	r, err := Start(Config{ConfigDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("config dir %v, %v; want 0700", fi, err)
	}
	if r.ClientID == "" {
		t.Fatal("no client id")
	}
	r2, err := Start(Config{ConfigDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if r2.ClientID == r.ClientID {
		t.Errorf("two runs share the client id %s", r.ClientID)
	}
}

// TestStartRefusesAnOpenDirectory: a config directory others can enter is
// tightened (and said so) or refused, never read as is.
func TestStartRefusesAnOpenDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	r, err := Start(Config{ConfigDir: dir})
	if err != nil {
		var oe *Error
		if !errors.As(err, &oe) || oe.Stage != StageConfigDir || !strings.HasPrefix(err.Error(), "config directory: ") {
			t.Fatalf("error %v: want a config directory stage error", err)
		}
		return
	}
	defer r.Close()
	fi, _ := os.Stat(dir)
	if fi.Mode().Perm()&0o077 != 0 || r.DirNote == "" {
		t.Errorf("directory left %v, note %q", fi.Mode().Perm(), r.DirNote)
	}
}

// TestProbeWritesNothing: doctor's opening creates no directory and
// claims nothing, yet has an id to dial with.
func TestProbeWritesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "absent")
	r, err := Start(Config{ConfigDir: dir, Probe: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a probe touched %s: %v", dir, err)
	}
	if len(r.ClientID) != 32 {
		t.Errorf("probe client id %q", r.ClientID)
	}
}

// TestTraceStage: a --trace path that cannot be created fails at the
// trace stage (the commands' usage error) with nothing left claimed.
func TestTraceStage(t *testing.T) {
	dir := t.TempDir()
	_, err := Start(Config{ConfigDir: dir, Trace: filepath.Join(dir, "no", "such", "dir", "trace.jsonl")})
	var oe *Error
	if !errors.As(err, &oe) || oe.Stage != StageTrace {
		t.Fatalf("error %v: want the trace stage", err)
	}
	// The claim was released: the next run gets the installation's id.
	r, err := Start(Config{ConfigDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	id, _ := os.ReadFile(filepath.Join(dir, "client-id"))
	if strings.TrimSpace(string(id)) != r.ClientID {
		t.Errorf("after a failed opening the id %q is still claimed (got %q)", id, r.ClientID)
	}
}

// TestDialKeepsTheTokenOut: a refused dial's error and the log line it
// leaves never carry the connection token.
func TestDialKeepsTheTokenOut(t *testing.T) {
	const secret = "SECRET-open-7c2d"
	var log bytes.Buffer
	r, err := Start(Config{ConfigDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	target, err := dial.Parse("ws://127.0.0.1:1/?tkn=" + secret)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := r.Dial(ctx, target, ""); err == nil {
		t.Fatal("dialled port 1")
	} else if strings.Contains(err.Error(), secret) {
		t.Errorf("the error carries the token: %v", err)
	}
	if !strings.Contains(log.String(), "connect failed") || strings.Contains(log.String(), secret) {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestDemoStoppedByClose: a run's demo host answers until the run closes.
func TestDemoStoppedByClose(t *testing.T) {
	r, err := Start(Config{ConfigDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	_, target, err := r.StartDemo(t.Context(), "", 0)
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, err := r.Dial(ctx, target, "")
	if err != nil {
		r.Close()
		t.Fatalf("dial the demo: %v", err)
	}
	c.Close()
	r.Close()
	if c, err := r.Dial(ctx, target, ""); err == nil {
		c.Close()
		t.Error("the demo host still answers after Close")
	}
}
