package interop

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ahptui/ahptui/internal/capimock"
)

// hostDir is where .ci/install-vscode-host.sh put VS Code's agent host:
// $AHPTUI_VSCODE_HOST_DIR, else the script's default cache directory.
// Without it the suite skips, saying how to install it; under CI=true it
// fails, since CI must run the suite.
func hostDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("AHPTUI_VSCODE_HOST_DIR")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "ahptui", "code-server-4.139.1")
	}
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		msg := fmt.Sprintf("VS Code's agent host is not installed at %s (%v); run .ci/install-vscode-host.sh (about 3 minutes) and set AHPTUI_VSCODE_HOST_DIR to the directory it prints", dir, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// vscodeHost is one run of VS Code's server with its agent host on
// loopback, under a HOME of its own and with the Copilot API mock's
// environment.
type vscodeHost struct {
	t         *testing.T
	dir       string
	home      string
	env       []string
	agentPort int
	// tokenFile, when set, is the connection token the host requires
	// (--connection-token-file; the SSH test's registry entry carries it).
	tokenFile string
	token     string
	cmd       *exec.Cmd
	done      chan struct{}

	logMu sync.Mutex
	log   strings.Builder
}

// URL is the agent host's WebSocket URL.
func (h *vscodeHost) URL() string { return fmt.Sprintf("ws://127.0.0.1:%d/", h.agentPort) }

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startHost starts VS Code's server with --agent-host-port and waits until
// the agent host accepts a WebSocket. The same home (and so the same
// sessions on disk) is reused by restart.
func startHost(t *testing.T, mock *capimock.Server) *vscodeHost {
	t.Helper()
	return startHostAt(t, hostDir(t), mock)
}

// startHostAt is startHost with the host installed at dir (the smoke
// suite's older versions).
func startHostAt(t *testing.T, dir string, mock *capimock.Server) *vscodeHost {
	t.Helper()
	h := newHost(t, dir, mock)
	h.start()
	return h
}

// newHost is a host at dir not started yet (start starts it).
func newHost(t *testing.T, dir string, mock *capimock.Server) *vscodeHost {
	t.Helper()
	h := &vscodeHost{t: t, dir: dir, home: t.TempDir(), agentPort: freePort(t)}
	h.env = append([]string{
		"HOME=" + h.home,
		"XDG_CONFIG_HOME=" + filepath.Join(h.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(h.home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(h.home, ".cache"),
		"XDG_RUNTIME_DIR=" + filepath.Join(h.home, "run"),
		"PATH=" + filepath.Join(h.dir, "node", "bin") + ":" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
	}, mock.Env()...)
	_ = os.MkdirAll(filepath.Join(h.home, "run"), 0o700)
	t.Cleanup(func() {
		h.stop()
		if t.Failed() {
			t.Logf("agent host output (last 6000 bytes):\n%s", h.output(6000))
		}
	})
	return h
}

func (h *vscodeHost) output(n int) string {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	s := h.log.String()
	if len(s) > n {
		s = s[len(s)-n:]
	}
	if h.token != "" {
		s = strings.ReplaceAll(s, h.token, "<connection token>")
	}
	return strings.ReplaceAll(s, capimock.Token, "<token>")
}

func (h *vscodeHost) start() {
	t := h.t
	t.Helper()
	webPort := freePort(t)
	node := filepath.Join(h.dir, "node", "bin", "node")
	args := serverArgs(webPort, h.agentPort, filepath.Join(h.home, "server-data"))
	if h.tokenFile != "" {
		// A file, never the token itself: the SSH test scans every
		// process's command line for it.
		for i, a := range args {
			if a == "--without-connection-token" {
				args = append(args[:i], append([]string{"--connection-token-file", h.tokenFile}, args[i+1:]...)...)
				break
			}
		}
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = filepath.Join(h.dir, "vscode")
	cmd.Env = h.env
	// Its own process group, so kill reaches the agent host and the
	// Copilot runtime it forks.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("start VS Code's server: %v", err)
	}
	h.cmd = cmd
	h.done = make(chan struct{})
	go func() {
		_ = cmd.Wait()
		_ = pw.Close()
		close(h.done)
	}()
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			h.logMu.Lock()
			h.log.WriteString(sc.Text())
			h.log.WriteByte('\n')
			h.logMu.Unlock()
		}
	}()
	if err := h.waitReady(90 * time.Second); err != nil {
		t.Fatalf("VS Code's agent host did not come up: %v\nits output:\n%s", err, h.output(6000))
	}
}

// serverArgs is how the suite runs VS Code's server: the README's
// "Connect to VS Code's agent host" gives the same flags (a test checks).
func serverArgs(webPort, agentPort int, dataDir string) []string {
	return []string{"out/server-main.js",
		"--host", "127.0.0.1", "--port", strconv.Itoa(webPort),
		"--without-connection-token", "--accept-server-license-terms",
		"--server-data-dir", dataDir,
		"--telemetry-level", "off",
		"--agent-host-port", strconv.Itoa(agentPort)}
}

// waitReady dials the agent host until a WebSocket upgrade succeeds, the
// server exits, or the timeout passes. A refused dial is the event "not
// listening yet"; each attempt waits on the dial itself.
func (h *vscodeHost) waitReady(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		dctx, dcancel := context.WithTimeout(ctx, 5*time.Second)
		u := h.URL()
		if h.token != "" {
			u += "?tkn=" + h.token
		}
		c, _, err := websocket.Dial(dctx, u, nil)
		dcancel()
		if err == nil {
			_ = c.CloseNow()
			return nil
		}
		last = err
		select {
		case <-h.done:
			return fmt.Errorf("the server exited: %v", h.cmd.ProcessState)
		case <-ctx.Done():
			return fmt.Errorf("%w (last dial: %v)", ctx.Err(), last)
		case <-tick.C:
		}
	}
}

// stop kills the server's whole process group and waits for it.
func (h *vscodeHost) stop() {
	if h.cmd == nil || h.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-h.done:
	case <-time.After(20 * time.Second):
		h.t.Logf("VS Code's server did not exit after SIGKILL")
	}
	h.cmd = nil
}

// restart kills the host and starts it again on the same port and home.
func (h *vscodeHost) restart() {
	h.t.Helper()
	h.stop()
	h.start()
}
