package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/host/registry"
	"github.com/ahptui/ahptui/internal/registrytest"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// registryHome is a home directory whose VS Code registry (Linux layout,
// owner-only) lists entries, with the environment that points ahptui at
// it.
func registryHome(t *testing.T, entries ...registry.Entry) []string {
	t.Helper()
	home, cfg, dir := registrytest.Home(t, entries...)
	// A dead host's entry and a misnamed copy of a live one sit beside
	// them; neither may be offered.
	dead := registry.Entry{SchemaVersion: 2, Type: "standalone", PID: exitedPID(t), InstanceID: "gone",
		ProtocolVersion: "1.0.0", ConnectionToken: "x", Endpoint: registry.Endpoint{Type: "tcp", Host: "127.0.0.1", Port: 1}}
	b, _ := json.Marshal(dead)
	_ = os.WriteFile(filepath.Join(dir, dead.Identity()+".json"), b, 0o600)
	_ = os.WriteFile(filepath.Join(dir, strings.Repeat("0", 64)+".json"), b, 0o600)
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + cfg, "VSCODE_PORTABLE=", "VSCODE_APPDATA="}
}

func exitedPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

// registryDemo starts a demo host that requires secret as its connection
// token and also listens on a Unix socket, as VS Code's hosts do.
func registryDemo(t *testing.T, secret string) (*demohost.Host, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "ah")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "h.sock")
	h, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, UnixSocket: sock, ConnectionToken: secret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, sock
}

func socketEntry(sock, secret, instance string) registry.Entry {
	return registry.Entry{SchemaVersion: 2, Type: "editor", PID: os.Getpid(), InstanceID: instance,
		ProtocolVersion: "1.0.0", ConnectionToken: secret, Endpoint: registry.Endpoint{Type: "socket", Path: sock}}
}

func tcpEntry(h *demohost.Host, secret, instance string) registry.Entry {
	hostPort := strings.TrimSuffix(strings.TrimPrefix(h.URL(), "ws://"), "/")
	i := strings.LastIndexByte(hostPort, ':')
	port, _ := strconv.Atoi(hostPort[i+1:])
	return registry.Entry{SchemaVersion: 2, Type: "standalone", PID: os.Getpid(), InstanceID: instance,
		ProtocolVersion: "1.0.0", ConnectionToken: secret, Quality: "stable",
		Endpoint: registry.Endpoint{Type: "tcp", Host: hostPort[:i], Port: port}}
}

// TestBareAhptuiFindsRegistryHost is issue 20's "find local hosts": with
// no flags at all, ahptui connects to the one live host VS Code's
// registry lists — over its Unix socket (editor) or TCP (standalone) —
// with the published token, and shows neither the token nor anything of
// the dead or misnamed entries.
func TestBareAhptuiFindsRegistryHost(t *testing.T) {
	t.Parallel()
	skipShort(t)
	for _, kind := range []string{"socket", "tcp"} {
		t.Run(kind, func(t *testing.T) {
			secret := newSecret(t)
			h, sock := registryDemo(t, secret)
			e, want := socketEntry(sock, secret, "one"), "ws+unix://"+sock
			if kind == "tcp" {
				e, want = tcpEntry(h, secret, "one"), h.URL()
			}
			bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
			s := tmuxtest.Start(t, tmuxtest.Options{Width: 120, Height: 40, Cmd: []string{bin}, Env: registryHome(t, e)})
			u := &user{t: t, s: s}
			screen := u.see("connected with no flags", connectedTo(suiteVersion))
			if !strings.Contains(statusLine(screen), want) {
				t.Errorf("the status line does not name %s:\n%s", want, statusLine(screen))
			}
			noSecret(t, "the screen", screen, secret)
		})
	}
}

// TestBareAhptuiPicksAmongHosts: several live hosts are offered as a
// list (type, pid, address, quality, version) and the one picked is
// connected to.
func TestBareAhptuiPicksAmongHosts(t *testing.T) {
	t.Parallel()
	skipShort(t)
	secret := newSecret(t)
	h, sock := registryDemo(t, secret)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	env := registryHome(t, socketEntry(sock, secret, "a"), tcpEntry(h, secret, "b"))
	s := tmuxtest.Start(t, tmuxtest.Options{Width: 120, Height: 40, Cmd: []string{bin}, Env: env})
	u := &user{t: t, s: s}
	screen := u.seeText("the picker lists both", "Connect to which?")
	for _, want := range []string{"standalone  pid " + strconv.Itoa(os.Getpid()), h.URL(), "stable", "editor  pid", "ws+unix://" + sock, "AHP 1.0.0"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the picker does not show %q:\n%s", want, screen)
		}
	}
	noSecret(t, "the picker", screen, secret)
	u.press("2", "Enter")
	screen = u.see("connected to the one picked", connectedTo(suiteVersion))
	if !strings.Contains(statusLine(screen), "ws+unix://"+sock) {
		t.Errorf("connected to another host:\n%s", statusLine(screen))
	}
}

// TestBareAhptuiNoHost: with nothing in the registry, one line says what
// to do.
func TestBareAhptuiNoHost(t *testing.T) {
	t.Parallel()
	skipShort(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(os.Environ(), registryHome(t)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("ahptui with no host exited 0")
	}
	got := strings.TrimSpace(stderr.String())
	if strings.Count(got, "\n") != 0 || !strings.Contains(got, "no agent host is running; start one with `code agent host`, pass --host, or try --demo") {
		t.Errorf("stderr is not the one line: %q", got)
	}
}
