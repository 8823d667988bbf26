package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/registry"
)

// Host is one agent host on a box, as discovery found it.
type Host struct {
	// Addr is the box, resolved (Runner.Resolve).
	Addr  Addr
	Entry registry.Entry
	// Relay: reach it through `code agent relay` (discovery came from
	// VS Code's CLI, which knows its user-data directory).
	Relay        bool
	UserDataPath string
}

// Identity is h's identity: ssh://user@box:port/TYPE/INSTANCE.
func (h Host) Identity() string { return h.Addr.Identity(h.Entry.Type, h.Entry.InstanceID) }

// Hosts are the box's hosts in r's result, the type and instance a's
// path names (if it names one) alone.
func Hosts(a Addr, r registry.RemoteResult) []Host {
	var out []Host
	for _, e := range r.Entries {
		if a.Instance != "" && (e.Type != a.Type || e.InstanceID != a.Instance) {
			continue
		}
		out = append(out, Host{Addr: a, Entry: e, Relay: r.FromCLI, UserDataPath: r.UserDataPath})
	}
	return out
}

// NoHost is the error for a box whose listing r holds no host to dial:
// ErrRemoteRegistry when a registry was there but refused (or VS Code's
// CLI failed) and nothing was found, else ErrNoRemoteHost, naming what
// was skipped.
func NoHost(a Addr, r registry.RemoteResult) *dial.DialError {
	if len(r.Entries) == 0 && len(r.Refused) > 0 {
		return dial.NewDialError(dial.ErrRemoteRegistry, a.Box(), r.Refused[0])
	}
	cause := "the box lists no live agent host of yours"
	if a.Instance != "" {
		cause = "the box no longer lists the agent host " + a.Type + "/" + a.Instance
	}
	if n := len(r.Skipped); n > 0 {
		cause += fmt.Sprintf(" (%d entries skipped: %s)", n, r.Skipped[0])
	}
	return dial.NewDialError(dial.ErrNoRemoteHost, a.Box(), cause)
}

// Target is the target dialling h. Every dial but a first one made soon
// after discovery re-reads the box, and dials only if the same instance
// is still listed by a live process of the remote user, at the same
// endpoint with the same token; then it opens the stream.
func (r Runner) Target(h Host) dial.Target {
	r.Interactive, r.Stderr = false, nil
	fresh := time.Now()
	var first atomic.Bool
	first.Store(true)
	id := h.Identity()
	addr := h.Addr
	addr.Type, addr.Instance = h.Entry.Type, h.Entry.InstanceID
	connect := func(ctx context.Context) (net.Conn, error) {
		cur := h
		if !first.Swap(false) || time.Since(fresh) > 30*time.Second {
			res, err := r.Discover(ctx, addr)
			if err != nil {
				return nil, withURL(err, id)
			}
			hs := Hosts(addr, res)
			if len(hs) == 0 {
				return nil, withURL(NoHost(addr, res), id)
			}
			cur = hs[0]
			if cur.Entry.Endpoint != h.Entry.Endpoint || cur.Entry.ConnectionToken != h.Entry.ConnectionToken {
				return nil, dial.NewDialError(dial.ErrNoRemoteHost, id, "the box lists this agent host differently now (another endpoint or token): run ahptui again")
			}
		}
		return r.Stream(ctx, cur)
	}
	return dial.Stream(id, h.Entry.ConnectionToken, connect)
}

// withURL is err (a *DialError) naming url.
func withURL(err error, url string) error {
	var de *dial.DialError
	if errors.As(err, &de) {
		c := *de
		c.URL = url
		return &c
	}
	return err
}

// Stream opens the byte stream to h's endpoint: an ssh process whose
// stdio is `code agent relay` on the box, or ssh's own -W forwarding to
// the TCP port or the socket. Nothing secret is on its command line.
func (r Runner) Stream(ctx context.Context, h Host) (net.Conn, error) {
	var extra, remote []string
	switch {
	case h.Relay:
		extra = []string{"-T"}
		remote = []string{"code", "agent", "relay", h.Entry.InstanceID}
		if h.UserDataPath != "" {
			remote = append(remote, "--user-data-dir", shellQuote(h.UserDataPath))
		}
		remote[3] = shellQuote(remote[3])
	case h.Entry.Endpoint.Type == "socket":
		return r.socketStream(ctx, h)
	default:
		host := h.Entry.Endpoint.Host
		if host == "" || host == "0.0.0.0" || host == "::" || host == "[::]" {
			host = "127.0.0.1"
		}
		extra = []string{"-W", joinHostPort(host, h.Entry.Endpoint.Port)}
	}
	id := h.Identity()
	// The process outlives ctx (the dial's): it is the connection.
	cmd := r.command(context.Background(), h.Addr, false, extra, remote...)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errs := &tee{}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errs
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, dial.NewDialError(dial.ErrDial, id, "start ssh: "+err.Error())
	}
	inR.Close()
	outW.Close()
	c := &procConn{r: outR, w: inW, cmd: cmd, id: id, relay: h.Relay, errs: errs, exited: make(chan struct{})}
	go c.wait()
	return c, nil
}

// procConn is a net.Conn over an ssh process's stdio. Close ends the
// process; the process ending is EOF on Read, so a dead ssh is a
// dropped connection, never a hang.
type procConn struct {
	r, w   *os.File
	cmd    *exec.Cmd
	id     string
	relay  bool
	errs   *tee
	exited chan struct{}
	// inner, for a socket endpoint, is the connection to the forward's
	// local socket in dir (the process's stdio is unused then).
	inner net.Conn
	dir   string

	mu      sync.Mutex
	failure error
	once    sync.Once
}

func (c *procConn) wait() {
	err := c.cmd.Wait()
	c.mu.Lock()
	if err != nil {
		stderr := c.errs.String()
		de := classify(c.id, stderr, err)
		if c.relay && de.Kind == dial.ErrDial && (containsAny(stderr, "unrecognized subcommand", "unknown command", "error: unexpected argument", "command not found", "No such file")) {
			de = dial.NewDialError(dial.ErrRelayMissing, c.id, "the box's code has no `agent relay`: "+lastLines(stderr, err))
		}
		if de.Kind == dial.ErrDial {
			de = dial.NewDialError(dial.ErrDropped, c.id, "ssh ended: "+lastLines(stderr, err))
		}
		c.failure = de
	}
	c.mu.Unlock()
	close(c.exited)
	// EOF for any reader: ssh's stdout is closed with it.
}

// Failure is why the process ended, once it has (waiting a moment for
// it when it is ending): host/dial reports it instead of the upgrade's
// EOF.
func (c *procConn) Failure() error {
	select {
	case <-c.exited:
	case <-time.After(time.Second):
		// Still running (a forward whose one channel failed): what it
		// said, if it said the channel failed.
		if s := c.errs.String(); strings.Contains(s, "open failed") {
			return classify(c.id, s, nil)
		}
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failure
}

// socketStream reaches a socket endpoint with OpenSSH's Unix-socket
// forwarding (ssh -N -L LOCAL:REMOTE) to a socket in a private (0700)
// temporary directory of ours, and dials it: ssh -W takes no socket
// path in every OpenSSH release. The process lives as long as the
// connection; Close ends it and removes the directory.
func (r Runner) socketStream(ctx context.Context, h Host) (net.Conn, error) {
	id := h.Identity()
	dir, err := os.MkdirTemp("", "ahptui-ssh-")
	if err != nil {
		return nil, dial.NewDialError(dial.ErrDial, id, "a private directory for the forward: "+err.Error())
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, dial.NewDialError(dial.ErrDial, id, err.Error())
	}
	local := filepath.Join(dir, "s")
	extra := []string{"-N", "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindMask=0177",
		"-L", local + ":" + h.Entry.Endpoint.Path}
	cmd := r.command(context.Background(), h.Addr, false, extra)
	errs := &tee{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, dial.NewDialError(dial.ErrDial, id, "start ssh: "+err.Error())
	}
	c := &procConn{cmd: cmd, id: id, errs: errs, exited: make(chan struct{}), dir: dir}
	go c.wait()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(local); err == nil {
			var d net.Dialer
			conn, err := d.DialContext(ctx, "unix", local)
			if err != nil {
				c.Close()
				return nil, dial.NewDialError(dial.ErrDial, id, "the forward's local socket: "+err.Error())
			}
			c.inner = conn
			return c, nil
		}
		select {
		case <-c.exited:
			c.Close()
			return nil, c.Failure()
		case <-ctx.Done():
			c.Close()
			return nil, dial.NewDialError(dial.ErrTimedOut, id, "ssh did not set up the forward in time")
		case <-tick.C:
		}
	}
}

func (c *procConn) Read(p []byte) (int, error) {
	if c.inner != nil {
		return c.inner.Read(p)
	}
	return c.r.Read(p)
}
func (c *procConn) Write(p []byte) (int, error) {
	if c.inner != nil {
		return c.inner.Write(p)
	}
	return c.w.Write(p)
}

func (c *procConn) Close() error {
	c.once.Do(func() {
		if c.inner != nil {
			c.inner.Close()
		} else {
			c.w.Close()
			c.r.Close()
		}
		if c.cmd.Process != nil {
			c.cmd.Process.Kill()
		}
		if c.dir != "" {
			os.RemoveAll(c.dir)
		}
	})
	return nil
}

func (c *procConn) LocalAddr() net.Addr  { return sshAddr(c.id) }
func (c *procConn) RemoteAddr() net.Addr { return sshAddr(c.id) }

func (c *procConn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *procConn) SetReadDeadline(t time.Time) error {
	if c.inner != nil {
		return c.inner.SetReadDeadline(t)
	}
	return c.r.SetReadDeadline(t)
}

func (c *procConn) SetWriteDeadline(t time.Time) error {
	if c.inner != nil {
		return c.inner.SetWriteDeadline(t)
	}
	return c.w.SetWriteDeadline(t)
}

type sshAddr string

func (a sshAddr) Network() string { return "ssh" }
func (a sshAddr) String() string  { return string(a) }

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// shellQuote is s as one word for the remote shell (ssh joins the
// remote command's words with spaces for it).
func shellQuote(s string) string {
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
			continue
		}
		out += string(r)
	}
	return out + "'"
}
