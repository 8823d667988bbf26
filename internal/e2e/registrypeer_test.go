package e2e

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// portThief starts the hostile host's portthiefd as uid 65534 on addr
// and returns the events it prints ("conn", "token", "authenticate").
func portThief(t *testing.T, addr string) <-chan string {
	t.Helper()
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui/protocol/internal/hostilehost/cmd/portthiefd")
	cmd := exec.Command(bin, "-addr", addr, "-uid", "65534")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	events := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			events <- sc.Text()
		}
		close(events)
	}()
	select {
	case l := <-events:
		if l != "ready" {
			t.Fatalf("portthiefd: %q", l)
		}
	case <-time.After(stepTimeout):
		t.Fatal("portthiefd did not start")
	}
	return events
}

// TestRegistryHostPortTakenByAnotherUser is the security review's
// finding 3: bare ahptui is connected to the host VS Code's registry
// lists; the host dies and another user's process takes its port. The
// reconnects are refused at the dial with a message that says why — so
// that process gets neither the registry's connection token nor an
// authenticate.
func TestRegistryHostPortTakenByAnotherUser(t *testing.T) {
	t.Parallel()
	skipShort(t)
	if os.Geteuid() != 0 {
		t.Skip("a listener of another user needs root")
	}
	secret := newSecret(t)
	h, _ := registryDemo(t, secret)
	e := tcpEntry(h, secret, "one")
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	s := tmuxtest.Start(t, tmuxtest.Options{Width: 160, Height: 40, Cmd: []string{bin}, Env: registryHome(t, e)})
	u := &user{t: t, s: s}
	u.see("connected with no flags", connectedTo(suiteVersion))
	h.Close()
	events := portThief(t, e.Address())
	screen := u.seeText("the reconnect is refused", "not your process")
	noSecret(t, "the screen", screen, secret)
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	conns := 0
	for conns < 2 {
		select {
		case ev := <-events:
			switch ev {
			case "conn":
				conns++
			default:
				t.Fatalf("the other user's process got %q", ev)
			}
		case <-ctx.Done():
			t.Fatalf("the other user's process saw %d reconnects, want 2", conns)
		}
	}
}

// TestRegistryHostGoneFromRegistry: the registry host's process exits
// (its entry left behind, as after a crash) and a listener takes its
// port; each reconnect re-reads the registry, finds the pid gone, says
// so, and dials nothing.
func TestRegistryHostGoneFromRegistry(t *testing.T) {
	t.Parallel()
	skipShort(t)
	secret := newSecret(t)
	h, _ := registryDemo(t, secret)
	sleeper := exec.Command("sleep", "120")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	e := tcpEntry(h, secret, "one")
	e.PID = sleeper.Process.Pid
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	s := tmuxtest.Start(t, tmuxtest.Options{Width: 160, Height: 40, Cmd: []string{bin}, Env: registryHome(t, e)})
	u := &user{t: t, s: s}
	u.see("connected with no flags", connectedTo(suiteVersion))
	sleeper.Process.Kill()
	sleeper.Wait()
	h.Close()
	var l net.Listener
	var err error
	for range 50 {
		if l, err = net.Listen("tcp", e.Address()); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan struct{}, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Close()
			got <- struct{}{}
		}
	}()
	screen := u.seeText("the reconnect is refused", "gone from the registry")
	noSecret(t, "the screen", screen, secret)
	select {
	case <-got:
		t.Fatal("a reconnect dialled the port")
	case <-time.After(500 * time.Millisecond):
	}
}
