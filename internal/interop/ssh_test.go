//go:build linux

package interop

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
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

	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/host/registry"
	"github.com/ahptui/ahptui/internal/capimock"
	"github.com/ahptui/ahptui/internal/tmuxtest"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// sshd is the Debian package's OpenSSH server (.ci/run installs it).
const sshd = "/usr/sbin/sshd"

// sshBox is a real sshd on loopback, with its own config, host key and
// authorized user key in a temp dir, logging in the current user (root
// on CI) into a "remote" whose XDG_CONFIG_HOME is a directory of the
// test's (sshd's SetEnv): the box whose registry ahptui reads.
type sshBox struct {
	t        *testing.T
	dir      string
	port     int
	user     string
	config   string // sshd_config
	remote   string // the remote's XDG_CONFIG_HOME
	hostPub  string // the host key's public line
	cmd      *exec.Cmd
	done     chan struct{}
	logMu    sync.Mutex
	log      bytes.Buffer
	clientFS string // ssh -F: the user key, a known_hosts holding the box's key
	strange  string // ssh -F: the same, with an empty known_hosts
	strangeK string // that empty known_hosts
}

func startSSHBox(t *testing.T) *sshBox {
	t.Helper()
	if _, err := os.Stat(sshd); err != nil {
		msg := "the SSH tests need OpenSSH's server at " + sshd + " (apt-get install openssh-server; .ci/run does)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	b := &sshBox{t: t, dir: dir, port: freePort(t), remote: filepath.Join(dir, "remote-config")}
	if u := os.Getenv("USER"); u != "" {
		b.user = u
	} else {
		out, err := exec.Command("id", "-un").Output()
		if err != nil {
			t.Fatal(err)
		}
		b.user = strings.TrimSpace(string(out))
	}
	keygen := func(name string) string {
		p := filepath.Join(dir, name)
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", p).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
		pub, err := os.ReadFile(p + ".pub")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(pub))
	}
	b.hostPub = keygen("host_key")
	userPub := keygen("user_key")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("authorized_keys", userPub+"\n")
	// sshd wants its privilege separation directory.
	_ = os.MkdirAll("/run/sshd", 0o755)
	b.config = write("sshd_config", fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
AuthorizedKeysFile %s
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AllowTcpForwarding yes
AllowStreamLocalForwarding yes
SetEnv XDG_CONFIG_HOME=%s
LogLevel VERBOSE
`, b.port, filepath.Join(dir, "host_key"), filepath.Join(dir, "sshd.pid"), filepath.Join(dir, "authorized_keys"), b.remote))
	known := write("known_hosts", fmt.Sprintf("[127.0.0.1]:%d %s\n", b.port, b.hostPub))
	b.strangeK = write("known_hosts_empty", "")
	client := func(name, knownHosts string) string {
		return write(name, fmt.Sprintf(`Host *
  IdentityFile %s
  IdentitiesOnly yes
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  PasswordAuthentication no
  KbdInteractiveAuthentication no
  LogLevel ERROR
`, filepath.Join(dir, "user_key"), knownHosts))
	}
	b.clientFS = client("ssh_config", known)
	b.strange = client("ssh_config_unknown", b.strangeK)
	t.Cleanup(func() {
		b.stop()
		if t.Failed() {
			b.logMu.Lock()
			t.Logf("sshd's log:\n%s", b.log.String())
			b.logMu.Unlock()
		}
	})
	b.start()
	return b
}

// sshCommand is AHPTUI_SSH_COMMAND for the box: its ssh config (the
// user key; known_hosts knows the box, or is empty when unknown).
func (b *sshBox) sshCommand(unknown bool) string {
	if unknown {
		return "ssh -F " + b.strange
	}
	return "ssh -F " + b.clientFS
}

// URL is the box as ahptui's --host names it.
func (b *sshBox) URL() string { return fmt.Sprintf("ssh://%s@127.0.0.1:%d", b.user, b.port) }

func (b *sshBox) start() {
	t := b.t
	cmd := exec.Command(sshd, "-D", "-e", "-f", b.config)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w := &lockedWriter{mu: &b.logMu, b: &b.log}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sshd: %v", err)
	}
	b.cmd, b.done = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); close(b.done) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(b.port), time.Second)
		if err == nil {
			// Wait for the banner, so sshd is past its start.
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			buf := make([]byte, 4)
			_, err = c.Read(buf)
			c.Close()
			if err == nil {
				return
			}
		}
		select {
		case <-b.done:
			t.Fatalf("sshd exited: %v\n%s", cmd.ProcessState, b.log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd did not listen: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop kills sshd and every process it forked (each connection's own
// sshd): a restart of the box's sshd that drops every connection.
func (b *sshBox) stop() {
	if b.cmd == nil {
		return
	}
	for _, pid := range descendants(b.cmd.Process.Pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
		b.t.Logf("sshd did not exit")
	}
	b.cmd = nil
}

func (b *sshBox) restart() {
	b.stop()
	b.start()
}

// descendants are pid's children, their children and so on (from
// /proc/*/stat).
func descendants(pid int) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(st)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		parent[p] = pp
	}
	var out []int
	want := map[int]bool{pid: true}
	for changed := true; changed; {
		changed = false
		for p, pp := range parent {
			if want[pp] && !want[p] {
				want[p] = true
				out = append(out, p)
				changed = true
			}
		}
	}
	return out
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() < 256<<10 {
		w.b.Write(p)
	}
	return len(p), nil
}

// publish writes the registry entry VS Code writes for a standalone
// agent host (LOCAL_ENDPOINT.md, schema v2) into the remote's
// ${XDG_CONFIG_HOME}/Code/agent-host/local-endpoint/entries: owner-only
// directories, a 0600 file named after the entry's identity.
func (b *sshBox) publish(e registry.Entry) {
	b.t.Helper()
	ah := filepath.Join(b.remote, "Code", "agent-host")
	entries := filepath.Join(ah, "local-endpoint", "entries")
	if err := os.MkdirAll(entries, 0o700); err != nil {
		b.t.Fatal(err)
	}
	for _, d := range []string{ah, filepath.Dir(entries), entries} {
		_ = os.Chmod(d, 0o700)
	}
	raw, _ := json.Marshal(e)
	if err := os.WriteFile(filepath.Join(entries, e.Identity()+".json"), raw, 0o600); err != nil {
		b.t.Fatal(err)
	}
}

// tokenWatch scans every process's command line (/proc/*/cmdline: what
// ps shows) for secret until stop, and says where it saw it.
func tokenWatch(t *testing.T, secret string) (stop func() []string) {
	done := make(chan struct{})
	var mu sync.Mutex
	var seen []string
	var scans int
	go func() {
		tick := time.NewTicker(25 * time.Millisecond)
		defer tick.Stop()
		for {
			ents, _ := os.ReadDir("/proc")
			for _, e := range ents {
				if _, err := strconv.Atoi(e.Name()); err != nil {
					continue
				}
				cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
				if err == nil && bytes.Contains(cl, []byte(secret)) {
					mu.Lock()
					seen = append(seen, strings.ReplaceAll(string(cl), "\x00", " "))
					mu.Unlock()
				}
			}
			mu.Lock()
			scans++
			mu.Unlock()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() []string {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		t.Logf("scanned every process's command line %d times", scans)
		return seen
	}
}

// TestSSHRemoteHost is issue 34 on real parts: a real sshd on loopback
// (its own config, host key and user key), VS Code's real agent host
// requiring a connection token, and the registry entry VS Code writes
// for it on the "remote" (the box's XDG_CONFIG_HOME). ahptui reaches it
// with --host ssh://user@127.0.0.1:PORT: the CLI refuses an unknown
// host key in BatchMode with its exit code, the UI lets ssh ask before
// its screen opens and a no is a no, and the UI connects, lists the
// session, runs a turn with an approval and survives a restart of sshd.
// All along no process's command line holds the connection token.
//
// The frames go through the suite's recorder on their way to the host
// (the registry entry names the recorder's port), as every interop test's
// do: ssh -W ends at the recorder, which passes ?tkn= to the host.
func TestSSHRemoteHost(t *testing.T) {
	if testing.Short() {
		t.Skip("interop: starts sshd and VS Code's agent host")
	}
	dir := hostDir(t)
	box := startSSHBox(t)
	tok := make([]byte, 24)
	rand.Read(tok)
	token := "ahp-ssh-" + hex.EncodeToString(tok)
	stopWatch := tokenWatch(t, token)
	defer func() {
		if seen := stopWatch(); len(seen) > 0 {
			t.Errorf("the connection token was on a command line (ps shows it): %q", seen)
		}
	}()

	mock, err := capimock.Start(capimock.Config{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mock.Close() })
	s := &suite{t: t, mock: mock, cwd: t.TempDir(), dir: dir}
	s.writeMCPConfig()
	h := newHost(t, dir, mock)
	h.token = token
	h.tokenFile = filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(h.tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	h.start()
	s.host = h
	s.rec = startRecorder(t, h.URL())
	s.bin = tmuxtest.Build(t, "github.com/ahptui/ahptui")
	_, recPort, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(s.rec.URL, "ws://"), "/"))
	port, _ := strconv.Atoi(recPort)
	entry := registry.Entry{SchemaVersion: 2, Type: registry.TypeStandalone, PID: h.cmd.Process.Pid,
		InstanceID: "ssh-interop-instance", ProtocolVersion: hostVersion, ConnectionToken: token,
		Endpoint: registry.Endpoint{Type: "tcp", Host: "127.0.0.1", Port: port}}
	box.publish(entry)
	identity := box.URL() + "/standalone/ssh-interop-instance"

	cliEnv := func(unknown bool) []string {
		return append(os.Environ(), "AHPTUI_SSH_COMMAND="+box.sshCommand(unknown))
	}
	runCLI := func(unknown bool, args ...string) (string, string, int) {
		cmd := exec.Command(s.bin, append(args, "--config-dir", t.TempDir(), "--host", box.URL())...)
		cmd.Env = cliEnv(unknown)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}

	t.Run("CLIRefusesUnknownHostKey", func(t *testing.T) {
		out, errs, code := runCLI(true, "status")
		if code != 12 || !strings.Contains(errs, "SSH host key not trusted") {
			t.Fatalf("status against an unknown host key: exit %d, want 12 naming it\nstdout: %s\nstderr: %s", code, out, errs)
		}
		if b, _ := os.ReadFile(box.strangeK); len(b) != 0 {
			t.Fatalf("the host key was accepted into known_hosts: %s", b)
		}
	})

	t.Run("UIAsksAboutUnknownHostKeyBeforeItOpens", func(t *testing.T) {
		ts := tmuxtest.Start(t, tmuxtest.Options{Width: 120, Height: 30, Dir: s.cwd,
			Env: []string{"AHPTUI_SSH_COMMAND=" + box.sshCommand(true)},
			Cmd: []string{s.bin, "--no-browser", "--config-dir", t.TempDir(), "--host", box.URL()}})
		ts.MustWaitFor("Are you sure you want to continue connecting", stepTimeout)
		ts.SendText("no")
		ts.SendKeys("Enter")
		code, err := ts.WaitExit(stepTimeout)
		if err != nil {
			t.Fatalf("ahptui did not exit after the host key was refused: %v\n%s", err, ts.Capture())
		}
		sc := ts.Capture()
		if code == 0 || !strings.Contains(sc, "SSH host key not trusted") {
			t.Fatalf("after no to the host key: exit %d, screen:\n%s", code, sc)
		}
		if strings.Contains(sc, "Sessions") || strings.Contains(sc, "● connected") {
			t.Fatalf("the UI opened although the host key was refused:\n%s", sc)
		}
		if b, _ := os.ReadFile(box.strangeK); len(b) != 0 {
			t.Fatalf("the host key was accepted into known_hosts: %s", b)
		}
	})

	t.Run("CLIStatus", func(t *testing.T) {
		out, errs, code := runCLI(false, "status", "--json")
		if code != 0 || !strings.Contains(out, identity) {
			t.Fatalf("status over ssh: exit %d, want 0 naming %s\nstdout: %s\nstderr: %s", code, identity, out, errs)
		}
		if strings.Contains(out+errs, token) {
			t.Fatal("status printed the connection token")
		}
	})

	t.Run("UIConnectsApprovesAndSurvivesSSHDRestart", func(t *testing.T) {
		cfg := t.TempDir()
		ts := tmuxtest.Start(t, tmuxtest.Options{Width: 140, Height: 45, Dir: s.cwd,
			Env: []string{"AHPTUI_SSH_COMMAND=" + box.sshCommand(false)},
			Cmd: []string{s.bin, "--no-browser", "--config-dir", cfg, "--cwd", s.cwd,
				"--log", filepath.Join(cfg, "ahptui.log"), "--host", box.URL()}})
		u := &user{t: t, s: ts, rec: s.rec}
		step := s.flatSteps(t)
		step("connect over ssh", func() {
			u.see("connected over AHP "+hostVersion, connected)
			if sc := ts.Capture(); strings.Contains(sc, token) {
				t.Fatal("the screen shows the connection token")
			}
		})
		step("create a session, listed", func() { u.createSession(s) })
		step("sign in to the agent's required resource", func() { u.signInByPaste(s) })
		step("stream a turn", func() {
			u.sendMessage(firstMessage)
			u.see("the mock's answer streamed into the chat", func(sc string) bool {
				return strings.Contains(chatText(sc), capimock.Reply)
			})
		})
		step("approve a shell command", func() { u.approveWithOption(s) })
		step("restart sshd: ahptui reconnects over a new ssh", func() {
			box.restart()
			u.waitFrame("ahptui reconnects", "→host", `"method":"reconnect"`)
			u.see("connected", func(sc string) bool { return strings.Contains(statusLine(sc), "● connected") })
			u.see("the session is still listed", func(sc string) bool { return strings.Contains(sc, "Sessions (1)") })
			u.sendMessage("after the sshd restart")
			u.see("a turn after the restart", func(sc string) bool { return strings.Contains(chatText(sc), "after the sshd restart") })
		})
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(cfg, "ahptui.log")); err == nil {
				t.Logf("ahptui's log:\n%s", b)
			}
		}
	})

	t.Run("IdentityIsBoxAndEndpointNotPort", func(t *testing.T) {
		getenv := func(k string) string {
			if k == "AHPTUI_SSH_COMMAND" {
				return box.sshCommand(false)
			}
			return ""
		}
		resolve := func() string {
			t.Helper()
			tg, err := pick.SSHTarget(pick.Spec{Host: box.URL()}, getenv, strings.NewReader(""), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			opts := pick.ClientOptions(tg, "ssh-identity-test", protocol.Implementation{Name: "ahptui-test"}, slog.New(slog.DiscardHandler))
			c, err := client.Dial(t.Context(), opts)
			if err != nil {
				t.Fatalf("connect to %s: %v", tg.URL, err)
			}
			_ = c.Close()
			return tg.URL
		}
		first := resolve()
		// The same agent host (type, instance) reached at another port
		// on the box: a second recorder in front of it.
		rec2 := startRecorder(t, h.URL())
		moved := entry
		_, p2, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(rec2.URL, "ws://"), "/"))
		moved.Endpoint.Port, _ = strconv.Atoi(p2)
		box.unpublish(entry)
		box.publish(moved)
		defer func() { box.unpublish(moved); box.publish(entry) }()
		second := resolve()
		if first != identity || second != identity {
			t.Fatalf("identities %q and %q, want both %q", first, second, identity)
		}
		if len(rec2.AllFrames("→host")) == 0 {
			t.Fatal("the second connection did not go through the moved endpoint")
		}
	})

	t.Run("SocketEndpointAndPicker", func(t *testing.T) {
		// A second agent host on the box listening on a Unix socket (the
		// editor's kind of endpoint), reached with ssh -W /path. The
		// socket is a loopback splice to the recorder: a second VS Code
		// server would double the test's time.
		sock := filepath.Join(t.TempDir(), "ah.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					up, err := net.Dial("tcp", "127.0.0.1:"+recPort)
					if err != nil {
						return
					}
					defer up.Close()
					go io.Copy(up, c)
					io.Copy(c, up)
				}()
			}
		}()
		ed := entry
		ed.Type, ed.InstanceID = registry.TypeEditor, "ssh-interop-editor"
		ed.Endpoint = registry.Endpoint{Type: "socket", Path: sock}
		box.publish(ed)
		defer box.unpublish(ed)
		edID := box.URL() + "/editor/ssh-interop-editor"

		cmd := exec.Command(s.bin, "status", "--json", "--config-dir", t.TempDir(), "--host", edID)
		cmd.Env = cliEnv(false)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), edID) {
			t.Fatalf("status --host %s: %v\n%s", edID, err, out)
		}
		// Two hosts on the box: the picker lists both, the answer picks.
		cmd = exec.Command(s.bin, "status", "--json", "--config-dir", t.TempDir(), "--host", box.URL())
		cmd.Env = cliEnv(false)
		cmd.Stdin = strings.NewReader("2\n")
		out, err = cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Agent hosts running on") || !strings.Contains(string(out), edID) {
			t.Fatalf("status with two hosts on the box, picking 2: %v\n%s", err, out)
		}
	})

	t.Run("DoctorChecksTheSSHPath", func(t *testing.T) {
		status := func(unknown bool) (map[string]string, int, string) {
			out, errs, code := runCLI(unknown, "doctor", "--json")
			var doc struct {
				Checks []struct{ Name, Status, Detail string }
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errs)
			}
			m := map[string]string{}
			for _, c := range doc.Checks {
				m[c.Name] = c.Status
			}
			return m, code, out
		}
		m, _, out := status(false)
		for _, name := range []string{"ssh", "box", "remote registry", "host", "reach", "version"} {
			if m[name] != "ok" {
				t.Errorf("doctor's %s check: %q, want ok\n%s", name, m[name], out)
			}
		}
		// (doctor exits with the first failed check's code; the config
		// dir's checks come before the host's.)
		m, _, out = status(true)
		if m["box"] != "fail" || !strings.Contains(out, "SSH host key not trusted") || strings.Contains(out, token) {
			t.Errorf("doctor with an unknown host key: box %q, want fail naming the host key\n%s", m["box"], out)
		}
	})

	t.Run("CLINoAgentHost", func(t *testing.T) {
		box.unpublish(entry)
		defer box.publish(entry)
		_, errs, code := runCLI(false, "status")
		if code != 14 || !strings.Contains(errs, "no agent host on the remote") {
			t.Fatalf("status with no host on the box: exit %d, want 14\n%s", code, errs)
		}
	})
}

// unpublish removes e's registry entry from the box.
func (b *sshBox) unpublish(e registry.Entry) {
	b.t.Helper()
	p := filepath.Join(b.remote, "Code", "agent-host", "local-endpoint", "entries", e.Identity()+".json")
	if err := os.Remove(p); err != nil {
		b.t.Fatal(err)
	}
}
