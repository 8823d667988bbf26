package hostpick

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/ahptui/ahptui/hostconn"
	"github.com/ahptui/ahptui/hostregistry"
	"github.com/ahptui/ahptui/views"
)

// ErrNoHostRunning is bare ahptui's one line when VS Code's registry
// lists no live agent host.
var ErrNoHostRunning = errors.New("no agent host is running; start one with `code agent host`, pass --host, or try --demo")

// RegistryEnv is where VS Code's registry is looked for: this process's
// environment and home.
func RegistryEnv() hostregistry.Env {
	home, _ := os.UserHomeDir()
	return hostregistry.Env{GOOS: runtime.GOOS, Getenv: os.Getenv, Home: home}
}

// Discover is the host bare `ahptui` connects to: the one live host
// in VS Code's local registry, or the one the user picks when there are
// several (the list on out, the answer from in).
func Discover(env hostregistry.Env, in io.Reader, out io.Writer) (hostconn.Target, error) {
	r := hostregistry.Discover(env, hostregistry.Alive)
	switch len(r.Entries) {
	case 0:
		return hostconn.Target{}, ErrNoHostRunning
	case 1:
		return RegistryTarget(r.Entries[0]), nil
	}
	fmt.Fprintln(out, "Agent hosts running on this machine:")
	for i, e := range r.Entries {
		fmt.Fprintf(out, "  %d) %s\n", i+1, DescribeEntry(e))
	}
	fmt.Fprintf(out, "Connect to which? [1-%d, or q]: ", len(r.Entries))
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && line == "" {
		return hostconn.Target{}, fmt.Errorf("no host picked (%w): pass --host to name one", err)
	}
	line = strings.TrimSpace(line)
	n, err := strconv.Atoi(line)
	if err != nil || n < 1 || n > len(r.Entries) {
		return hostconn.Target{}, fmt.Errorf("no host picked (%q): run ahptui again and type a number from the list, or pass --host", views.SanitizeLine(line))
	}
	return RegistryTarget(r.Entries[n-1]), nil
}

// RegistryTarget is the target an entry publishes, used as published.
func RegistryTarget(e hostregistry.Entry) hostconn.Target {
	if e.Endpoint.Type == "socket" {
		return hostconn.Unix(e.Endpoint.Path, e.ConnectionToken)
	}
	t, _ := hostconn.Parse(e.URL())
	return t.WithToken(e.ConnectionToken)
}

// DescribeEntry is one line of the picker and of `ahptui hosts`: type,
// pid, address, quality and protocol version (registry text, sanitized;
// never the token).
func DescribeEntry(e hostregistry.Entry) string {
	s := fmt.Sprintf("%s  pid %d  %s", e.Type, e.PID, views.SanitizeLine(e.URL()))
	if e.Quality != "" {
		s += "  " + views.SanitizeLine(e.Quality)
	}
	if e.TunnelName != "" {
		s += "  tunnel " + views.SanitizeLine(e.TunnelName)
	}
	return s + "  AHP " + views.SanitizeLine(e.ProtocolVersion)
}
