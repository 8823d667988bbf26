package pick

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/registry"
	"github.com/ahptui/ahptui/views"
)

// ErrNoHostRunning is bare ahptui's one line when VS Code's registry
// lists no live agent host.
var ErrNoHostRunning = errors.New("no agent host is running; start one with `code agent host`, pass --host, or try --demo")

// RegistryEnv is where VS Code's registry is looked for: this process's
// environment and home.
func RegistryEnv() registry.Env {
	home, _ := os.UserHomeDir()
	return registry.Env{GOOS: runtime.GOOS, Getenv: os.Getenv, Home: home}
}

// Discover is the host bare `ahptui` connects to: the one live host
// in VS Code's local registry, or the one the user picks when there are
// several (the list on out, the answer from in).
func Discover(env registry.Env, in io.Reader, out io.Writer) (dial.Target, error) {
	r := registry.Discover(env, registry.Alive)
	switch len(r.Entries) {
	case 0:
		return dial.Target{}, ErrNoHostRunning
	case 1:
		return RegistryTargetIn(env, r.Entries[0]), nil
	}
	fmt.Fprintln(out, "Agent hosts running on this machine:")
	for i, e := range r.Entries {
		fmt.Fprintf(out, "  %d) %s\n", i+1, DescribeEntry(e))
	}
	fmt.Fprintf(out, "Connect to which? [1-%d, or q]: ", len(r.Entries))
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && line == "" {
		return dial.Target{}, fmt.Errorf("no host picked (%w): pass --host to name one", err)
	}
	line = strings.TrimSpace(line)
	n, err := strconv.Atoi(line)
	if err != nil || n < 1 || n > len(r.Entries) {
		return dial.Target{}, fmt.Errorf("no host picked (%q): run ahptui again and type a number from the list, or pass --host", views.SanitizeLine(line))
	}
	return RegistryTargetIn(env, r.Entries[n-1]), nil
}

// RegistryTarget is the target an entry of this user's registry
// publishes (RegistryTargetIn with RegistryEnv).
func RegistryTarget(e registry.Entry) dial.Target {
	return RegistryTargetIn(RegistryEnv(), e)
}

// RegistryTargetIn is the target an entry of env's registry publishes,
// dialled only while it is still the user's host: every dial, the first
// and each reconnect, re-reads the registry (the entry must still be
// listed, at the same address, by a live process of the user's) and
// checks the peer of the connection (dial.VerifyPeer) before the
// connection token — or any sign-in pushed after it — is sent.
func RegistryTargetIn(env registry.Env, e registry.Entry) dial.Target {
	var t dial.Target
	if e.Endpoint.Type == "socket" {
		t = dial.Unix(e.Endpoint.Path, e.ConnectionToken)
	} else {
		t, _ = dial.Parse(e.URL())
		t = t.WithToken(e.ConnectionToken)
	}
	return t.VerifyPeer(func() error { return StillListed(env, e) })
}

// StillListed says whether env's registry still lists e (by its
// identity: type, pid and instance) at the same address, as a live
// process of the user's. Its error never holds the token.
func StillListed(env registry.Env, e registry.Entry) error {
	id := e.Identity()
	for _, now := range registry.Discover(env, registry.Alive).Entries {
		if now.Identity() != id {
			continue
		}
		if now.Endpoint != e.Endpoint {
			return fmt.Errorf("the registry lists this host (pid %d) at another address now: run ahptui again", e.PID)
		}
		return nil
	}
	return fmt.Errorf("the registry no longer lists this host (pid %d has exited, is not yours, or its entry is gone): run ahptui again", e.PID)
}

// DescribeEntry is one line of the picker and of `ahptui hosts`: type,
// pid, address, quality and protocol version (registry text, sanitized;
// never the token).
func DescribeEntry(e registry.Entry) string {
	s := fmt.Sprintf("%s  pid %d  %s", e.Type, e.PID, views.SanitizeLine(e.URL()))
	if e.Quality != "" {
		s += "  " + views.SanitizeLine(e.Quality)
	}
	if e.TunnelName != "" {
		s += "  tunnel " + views.SanitizeLine(e.TunnelName)
	}
	return s + "  AHP " + views.SanitizeLine(e.ProtocolVersion)
}
