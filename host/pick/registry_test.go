//go:build linux

package pick

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/registry"
	"github.com/ahptui/ahptui/internal/registrytest"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

const secret = "REGISTRY-TOKEN-5c1e"

// TestHostpickHelperProcess is not a test: run by otherUsersListener, it
// becomes uid 65534, listens on HOSTPICK_LISTEN (127.0.0.1:PORT), prints
// "ready", then for each connection, once it closes, what it got.
func TestHostpickHelperProcess(t *testing.T) {
	addr := os.Getenv("HOSTPICK_LISTEN")
	if addr == "" {
		t.Skip("run by otherUsersListener")
	}
	fail := func(err error) { fmt.Println("error", err); os.Exit(1) }
	for _, err := range []error{syscall.Setgroups(nil), syscall.Setgid(65534), syscall.Setuid(65534)} {
		if err != nil {
			fail(err)
		}
	}
	var l net.Listener
	var err error
	for range 50 { // the port may linger a moment after the host closed it
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		fail(err)
	}
	fmt.Println("ready")
	for {
		c, err := l.Accept()
		if err != nil {
			fail(err)
		}
		go func() {
			c.SetReadDeadline(time.Now().Add(3 * time.Second))
			b, _ := io.ReadAll(c)
			c.Close()
			fmt.Printf("conn %d bytes, token=%v, authenticate=%v\n", len(b), strings.Contains(string(b), secret), strings.Contains(string(b), "authenticate"))
		}()
	}
}

// otherUsersListener takes addr as uid 65534 (this test binary re-run as
// root, dropping to that uid itself) and returns its report lines.
func otherUsersListener(t *testing.T, addr string) <-chan string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostpickHelperProcess$")
	cmd.Env = append(os.Environ(), "HOSTPICK_LISTEN="+addr)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l := <-lines:
		if l != "ready" {
			t.Fatalf("the other user's listener: %s", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the other user's listener did not start")
	}
	return lines
}

// registryEnv is a registry (Linux layout, owner-only) listing e.
func registryEnv(t *testing.T, e registry.Entry) registry.Env {
	t.Helper()
	home, cfg, _ := registrytest.Home(t, e)
	return registrytest.Env(home, cfg)
}

// connectedToRegistryHost starts a demo host requiring the registry's
// token, lists it with pid, and connects a real client to what Discover
// picks; it returns the host, its address and the client's events.
func connectedToRegistryHost(t *testing.T, pid int) (*demohost.Host, string, *client.Client) {
	t.Helper()
	h, err := demohost.Start(t.Context(), demohost.Config{ConnectionToken: secret, NoDemoSession: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	addr := strings.TrimSuffix(strings.TrimPrefix(h.URL(), "ws://"), "/")
	_, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)
	e := registry.Entry{SchemaVersion: 2, Type: registry.TypeStandalone, PID: pid, InstanceID: "one",
		ProtocolVersion: "1.0.0", ConnectionToken: secret, Endpoint: registry.Endpoint{Type: "tcp", Host: "127.0.0.1", Port: port}}
	target, err := Discover(registryEnv(t, e), strings.NewReader(""), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	opts := ClientOptions(target, "test-client", protocol.Implementation{Name: "ahptui-test"}, slog.New(slog.DiscardHandler))
	opts.ReconnectInitial, opts.ReconnectMax, opts.GiveUpAfter = 50*time.Millisecond, 200*time.Millisecond, time.Minute
	c, err := client.Dial(t.Context(), opts)
	if err != nil {
		t.Fatalf("the first connection to the registry's host: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return h, addr, c
}

// waitCause waits for a reconnect failure whose cause says want.
func waitCause(t *testing.T, c *client.Client, want string) error {
	t.Helper()
	deadline := time.After(15 * time.Second)
	var last error
	for {
		select {
		case ev := <-c.Events():
			if ce, ok := ev.(client.ConnectionEvent); ok && ce.Cause != nil {
				last = ce.Cause
				if strings.Contains(ce.Cause.Error(), want) {
					return ce.Cause
				}
			}
		case <-deadline:
			t.Fatalf("no reconnect failed saying %q (last: %v)", want, last)
		}
	}
}

// TestRegistryHostReplacedByOtherUser: a registry host dies and another
// user's process takes its port; the client's reconnects are refused at
// the dial, so that process gets neither the connection token nor an
// authenticate.
func TestRegistryHostReplacedByOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a listener of another user needs root")
	}
	h, addr, c := connectedToRegistryHost(t, os.Getpid())
	h.Close()
	lines := otherUsersListener(t, addr)
	cause := waitCause(t, c, "is not yours (uid 65534)")
	if strings.Contains(cause.Error(), secret) {
		t.Errorf("the refusal shows the token: %v", cause)
	}
	var de *dial.DialError
	if !errors.As(cause, &de) || !errors.Is(cause, dial.ErrNotOurs) {
		t.Errorf("the refusal is %T %v, want a DialError of kind ErrNotOurs", cause, cause)
	}
	select {
	case l := <-lines:
		if l != "conn 0 bytes, token=false, authenticate=false" {
			t.Fatalf("the other user's listener got: %s", l)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the other user's listener saw no reconnect")
	}
}

// TestRegistryHostGoneIsNotRedialled: once the registry's host process
// has exited, a reconnect re-reads the registry and dials nothing —
// whoever took the port (here a listener of ours) gets no byte.
func TestRegistryHostGoneIsNotRedialled(t *testing.T) {
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	h, addr, c := connectedToRegistryHost(t, sleeper.Process.Pid)
	sleeper.Process.Kill()
	sleeper.Wait()
	h.Close()
	var l net.Listener
	var err error
	for range 50 {
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan int, 16)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			conn.SetReadDeadline(time.Now().Add(3 * time.Second))
			b, _ := io.ReadAll(conn)
			conn.Close()
			got <- len(b)
		}
	}()
	cause := waitCause(t, c, "the registry no longer lists this host")
	if strings.Contains(cause.Error(), secret) {
		t.Errorf("the refusal shows the token: %v", cause)
	}
	select {
	case n := <-got:
		t.Fatalf("a reconnect reached the port (%d bytes)", n)
	case <-time.After(500 * time.Millisecond):
	}
}
