//go:build linux

package dial

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// nobody is the other user's uid (and gid) in these tests.
const nobody = 65534

// TestPeerHelperProcess is not a test: run by otherUsersListener, it
// becomes uid 65534, listens where HOSTCONN_PEER_LISTEN says
// ("tcp:127.0.0.1:PORT" or "unix:PATH"), prints "ready ADDR", and for
// each connection, once it closes, "conn N bytes, token=BOOL".
func TestPeerHelperProcess(t *testing.T) {
	spec := os.Getenv("HOSTCONN_PEER_LISTEN")
	if spec == "" {
		t.Skip("run by otherUsersListener")
	}
	RunOtherUsersListener(spec)
}

// RunOtherUsersListener is TestPeerHelperProcess's body (host/pick's tests
// run it too through their own helper).
func RunOtherUsersListener(spec string) {
	fail := func(err error) { fmt.Println("error", err); os.Exit(1) }
	if err := syscall.Setgroups(nil); err != nil {
		fail(err)
	}
	if err := syscall.Setgid(nobody); err != nil {
		fail(err)
	}
	if err := syscall.Setuid(nobody); err != nil {
		fail(err)
	}
	network, addr, _ := strings.Cut(spec, ":")
	l, err := net.Listen(network, addr)
	if err != nil {
		fail(err)
	}
	fmt.Println("ready", l.Addr())
	for {
		c, err := l.Accept()
		if err != nil {
			fail(err)
		}
		go func() {
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			b, _ := io.ReadAll(c)
			c.Close()
			fmt.Printf("conn %d bytes, token=%v\n", len(b), strings.Contains(string(b), TokenParam+"="))
		}()
	}
}

// otherUser is a listener of uid 65534: where it listens, and the lines
// it prints.
type otherUser struct {
	Addr  string
	lines chan string
}

// StartOtherUsersListener re-runs this test binary as the listener of
// another user (it starts as root and drops to uid 65534 itself: the
// test binary's directory may not be open to that user).
func StartOtherUsersListener(t *testing.T, helperTest, spec string) *otherUser {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a listener of another user needs root")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+helperTest+"$", "-test.v=false")
	cmd.Env = append(os.Environ(), "HOSTCONN_PEER_LISTEN="+spec)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	o := &otherUser{lines: make(chan string, 16)}
	sc := bufio.NewScanner(out)
	go func() {
		for sc.Scan() {
			o.lines <- sc.Text()
		}
		close(o.lines)
	}()
	select {
	case l := <-o.lines:
		addr, ok := strings.CutPrefix(l, "ready ")
		if !ok {
			t.Fatalf("the other user's listener: %s", l)
		}
		o.Addr = addr
	case <-time.After(10 * time.Second):
		t.Fatal("the other user's listener did not start")
	}
	return o
}

// Conn waits for the listener's report of one closed connection.
func (o *otherUser) Conn(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-o.lines:
		if !ok {
			t.Fatal("the other user's listener ended")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("the other user's listener saw no connection")
	}
	return ""
}

func wsHandler(got chan<- string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.URL.Query().Get(TokenParam)
		if tp, err := jsonrpc.Accept(w, r, jsonrpc.AcceptOptions{}); err == nil {
			tp.Close("bye")
		}
	})
}

// TestVerifiedDialToOurListener: a host of ours, over TCP and over a
// Unix socket, passes the check and gets its token.
func TestVerifiedDialToOurListener(t *testing.T) {
	got := make(chan string, 2)
	srv := httptest.NewServer(wsHandler(got))
	defer srv.Close()
	tg, _ := Parse("ws://" + srv.Listener.Addr().String() + "/?tkn=" + secret)
	tp, err := tg.VerifyPeer(nil).Dial(context.Background(), 0)
	if err != nil {
		t.Fatalf("a verified dial to our own listener: %v", err)
	}
	tp.Close("")
	if tok := <-got; tok != secret {
		t.Errorf("the host got token %q", tok)
	}

	if l6, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		srv6 := httptest.NewUnstartedServer(wsHandler(got))
		srv6.Listener.Close()
		srv6.Listener = l6
		srv6.Start()
		defer srv6.Close()
		tg6, _ := Parse("ws://" + l6.Addr().String() + "/?tkn=" + secret)
		tp, err := tg6.VerifyPeer(nil).Dial(context.Background(), 0)
		if err != nil {
			t.Fatalf("a verified dial to our own listener on ::1: %v", err)
		}
		tp.Close("")
		if tok := <-got; tok != secret {
			t.Errorf("the host got token %q over IPv6", tok)
		}
	}

	dir, err := os.MkdirTemp("", "hc")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l, err := net.Listen("unix", filepath.Join(dir, "h.sock"))
	if err != nil {
		t.Fatal(err)
	}
	us := &http.Server{Handler: wsHandler(got)}
	go us.Serve(l)
	defer us.Close()
	tp, err = Unix(filepath.Join(dir, "h.sock"), secret).VerifyPeer(nil).Dial(context.Background(), 0)
	if err != nil {
		t.Fatalf("a verified dial to our own socket: %v", err)
	}
	tp.Close("")
	if tok := <-got; tok != secret {
		t.Errorf("the host got token %q over the socket", tok)
	}
}

// refused checks a verified dial was refused as not ours, with no token
// in its text, and that the listener got not a byte.
func refused(t *testing.T, o *otherUser, tg Target, want string) {
	t.Helper()
	_, err := tg.VerifyPeer(nil).Dial(context.Background(), 0)
	var de *DialError
	if !errors.As(err, &de) || !errors.Is(err, ErrNotOurs) {
		t.Fatalf("a dial to another user's listener: %v, want ErrNotOurs", err)
	}
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), secret) {
		t.Errorf("the refusal says %q; want %q and no token", err, want)
	}
	if l := o.Conn(t); l != "conn 0 bytes, token=false" {
		t.Errorf("the other user's listener got: %s", l)
	}
}

// TestVerifiedDialRefusesOtherUsersListener: a listener of uid 65534 on
// 127.0.0.1 or a Unix socket is refused before the upgrade, so it never
// sees the token; an unverified dial (a --host the user named) still
// goes there.
func TestVerifiedDialRefusesOtherUsersListener(t *testing.T) {
	t.Run("tcp", func(t *testing.T) {
		o := StartOtherUsersListener(t, "TestPeerHelperProcess", "tcp:127.0.0.1:0")
		tg, _ := Parse("ws://" + o.Addr + "/?tkn=" + secret)
		_, port, _ := net.SplitHostPort(o.Addr)
		refused(t, o, tg, "the process listening on 127.0.0.1:"+port+" is not yours (uid 65534)")
		conn, err := net.Dial("tcp", o.Addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := PeerIsOurs(conn); err == nil {
			t.Error("PeerIsOurs says another user's listener is ours")
		}
		conn.Close()
		o.Conn(t)
	})
	t.Run("unix", func(t *testing.T) {
		dir, err := os.MkdirTemp("", "hc")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		sock := filepath.Join(dir, "h.sock")
		o := StartOtherUsersListener(t, "TestPeerHelperProcess", "unix:"+sock)
		refused(t, o, Unix(sock, secret), "is not yours (uid 65534")
	})
}
