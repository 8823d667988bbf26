package authpkce

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// storeWriterEnv, when set, turns this test binary into one of the writer
// processes of TestStoreTwoProcesses: TestStoreWriterProcess then saves
// grants into the directory it names instead of testing anything.
const storeWriterEnv = "AHPTUI_STORE_WRITER"

const grantsPerWriter = 40

// TestStoreTwoProcesses runs two real processes (this test binary,
// re-executed) that save grants into one token directory at the same
// moment: each announces it is ready, both are released together, and
// afterwards every grant of both must be in the file. Without the lock
// and re-read, the last writer's file would drop the other's grants.
func TestStoreTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	type writer struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Reader
	}
	var ws []writer
	for _, name := range []string{"p1", "p2"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStoreWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), storeWriterEnv+"="+dir+"|"+name)
		cmd.Stderr = os.Stderr
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
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		ws = append(ws, writer{cmd, stdin, bufio.NewReader(stdout)})
	}
	for _, w := range ws {
		line, err := w.out.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != "ready" {
			t.Fatalf("writer did not get ready: %q %v", line, err)
		}
	}
	for _, w := range ws {
		if _, err := io.WriteString(w.stdin, "go\n"); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range ws {
		rest, _ := io.ReadAll(w.out)
		if err := w.cmd.Wait(); err != nil {
			t.Fatalf("writer failed: %v\n%s", err, rest)
		}
	}

	a, err := New(Config{Dir: dir, HTTPClient: offline})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, g := range a.Grants() {
		have[g.Resource] = true
	}
	for _, name := range []string{"p1", "p2"} {
		for i := range grantsPerWriter {
			if r := writerResource(name, i); !have[r] {
				t.Errorf("grant %s was lost", r)
			}
		}
	}
	if len(have) != 2*grantsPerWriter {
		t.Errorf("%d grants in the store, want %d", len(have), 2*grantsPerWriter)
	}
	if len(a.store.answers()) != 2 {
		t.Errorf("%d host answers in the store, want one per writer", len(a.store.answers()))
	}
}

func writerResource(name string, i int) string {
	return "https://api.example/" + name + "/" + strconv.Itoa(i)
}

// TestStoreWriterProcess is the child side of TestStoreTwoProcesses; run
// on its own it does nothing.
func TestStoreWriterProcess(t *testing.T) {
	env := os.Getenv(storeWriterEnv)
	if env == "" {
		t.Skip("only runs as a child of TestStoreTwoProcesses")
	}
	dir, name, _ := strings.Cut(env, "|")
	// Each save opens its own Authenticator as well: a fresh process view
	// of the file must merge, not only a long-lived one.
	a, err := New(Config{Dir: dir, HTTPClient: offline})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	if line, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil || line != "go\n" {
		t.Fatalf("no go signal: %q %v", line, err)
	}
	for i := range grantsPerWriter {
		k := tokenKey{Host: "ws://127.0.0.1:1", Issuer: "https://as.example", Resource: writerResource(name, i), ClientID: name}
		if err := a.store.putToken(k, Token{AccessToken: name + strconv.Itoa(i)}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Answer("ws://"+name+".example", "https://api.example/", "https://as.example", true); err != nil {
		t.Fatal(err)
	}
}
