package pick

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/saved"
	"github.com/ahptui/ahptui/host/ssh"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// Spec is the host the command line names: at most one of Host, Saved and
// Demo; none of them means VS Code's registry (Discover).
type Spec struct {
	Host      string // --host URL
	TokenFile string // --connection-token-file
	Saved     string // a saved host's name (ahptui NAME, --host NAME)
	// SavedViaHost: the name came as --host NAME, so a miss says the
	// value is neither a URL nor a saved name.
	SavedViaHost bool
	Insecure     bool   // --insecure: plain ws:// to another machine
	Demo         bool   // --demo
	ConfigDir    string // --config-dir; "" means the user config dir + /ahptui
	// FromEnv: Host came from AHPTUI_HOST (UseDefault), for messages.
	FromEnv bool
	// AskOnTerminal: an ssh:// host's first look may let ssh ask on
	// the terminal (an unknown host key, a password) — the UI, before
	// its screen opens. Without it ssh runs in BatchMode.
	AskOnTerminal bool
	// savedName names an ssh:// target that came from hosts.yml.
	savedName string
}

// Discover reports whether the spec names no host, so VS Code's registry
// is read.
func (s Spec) Discover() bool { return s.Host == "" && !s.Demo && s.Saved == "" }

// ErrTokenFileWithoutHost refuses a connection token file where no host
// is named to send it to: the demo takes none, and a discovered host
// publishes its own.
var ErrTokenFileWithoutHost = errors.New("--connection-token-file applies to --host or a saved host's name; the demo and discovered hosts bring their own")

// Normalize turns a --host that is a saved host's name into Saved and
// checks that the spec names one host in a form that can be dialled. The
// transport rule (CheckTransport) is left to the caller, which may have
// other checks to report first.
func (s *Spec) Normalize() error {
	if s.Saved == "" && saved.ValidName(s.Host) {
		s.Saved, s.Host, s.SavedViaHost = s.Host, "", true
	}
	if s.Saved != "" && !saved.ValidName(s.Saved) {
		return fmt.Errorf("unexpected argument %q: give a saved host's name, --host URL or --demo", dial.Redact(s.Saved))
	}
	if s.Saved != "" && (s.Host != "" || s.Demo) {
		return errors.New("give one host: a saved name, --host or --demo")
	}
	if s.Host != "" && s.Demo {
		return errors.New("give one of --host ws://… or --demo, not both (see --help)")
	}
	if s.Host != "" {
		if err := CheckURL(s.Host); err != nil {
			return err
		}
	}
	if s.TokenFile != "" && (s.Demo || s.Discover()) {
		return ErrTokenFileWithoutHost
	}
	return nil
}

// DiscoverError is a failure to find a host in VS Code's registry: not a
// usage error, since nothing the user typed was wrong.
type DiscoverError struct{ Err error }

func (e *DiscoverError) Error() string { return e.Err.Error() }
func (e *DiscoverError) Unwrap() error { return e.Err }

// Resolve is the target s names (the zero Target for the demo, which the
// caller starts): a saved host, the registry's (the picker on out, the
// answer from in, when it lists several) or --host with its token. A
// registry failure is a *DiscoverError; every other error is one of usage.
func Resolve(s Spec, getenv func(string) string, in io.Reader, out io.Writer) (dial.Target, error) {
	switch {
	case s.Saved != "":
		return SavedTarget(s)
	case s.Demo:
		return dial.Target{}, nil
	case s.Discover():
		t, err := Discover(RegistryEnv(), in, out)
		if err != nil {
			return t, &DiscoverError{err}
		}
		return t, nil
	case ssh.IsSSH(s.Host):
		if s.TokenFile != "" {
			return dial.Target{}, errSSHTokenFile
		}
		return SSHTarget(s, getenv, in, out)
	}
	return URLTarget(s, getenv)
}

// ConfigDir is dir, else the user config dir + /ahptui.
func ConfigDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory (%w): pass --config-dir", err)
	}
	return filepath.Join(base, "ahptui"), nil
}

// URLTarget is the host --host names, with its connection token taken
// from --connection-token-file, else the URL's ?tkn=, else
// AHPTUI_CONNECTION_TOKEN (the file and the variable keep the secret out
// of shell history and `ps`).
func URLTarget(s Spec, getenv func(string) string) (dial.Target, error) {
	t, err := dial.Parse(s.Host)
	if err != nil {
		return t, fmt.Errorf("--host: %w", err)
	}
	switch {
	case s.TokenFile != "":
		tok, err := dial.ReadTokenFile(s.TokenFile)
		if err != nil {
			return t, err
		}
		t = t.WithToken(tok)
	case !t.HasToken():
		t = t.WithToken(getenv(dial.TokenEnv))
	}
	return t, nil
}

// errSSHTokenFile refuses a connection token file for an ssh:// host,
// whose box publishes its token.
var errSSHTokenFile = errors.New("--connection-token-file does not apply to an ssh:// host: the box publishes its token")

// sshCommandEnv reads the ssh command's variable for a saved host.
var sshCommandEnv = os.Getenv

// ErrSavedHosts wraps a hosts.yml that could not be read or was refused
// (open to others, not the user's): a local failure, not a wrong flag.
var ErrSavedHosts = errors.New("saved hosts")

// SavedTarget is the saved host s names, with the token from its file
// (or --connection-token-file), under the same transport rule as --host.
func SavedTarget(s Spec) (dial.Target, error) {
	dir, err := ConfigDir(s.ConfigDir)
	if err != nil {
		return dial.Target{}, err
	}
	hosts, err := saved.Load(dir)
	if err != nil {
		return dial.Target{}, fmt.Errorf("%w: %w", ErrSavedHosts, err)
	}
	h, ok := saved.Find(hosts, s.Saved)
	if !ok {
		file := filepath.Join(dir, saved.FileName)
		if s.FromEnv {
			return dial.Target{}, fmt.Errorf("%s=%q is neither a URL nor a host saved in %s: give %s", HostEnv, s.Saved, file, Form)
		}
		if s.SavedViaHost {
			return dial.Target{}, fmt.Errorf("--host %q is neither a URL nor a host saved in %s: give %s", s.Saved, file, Form)
		}
		return dial.Target{}, fmt.Errorf("no saved host %q in %s: add it there, or give --host %s", s.Saved, file, Form)
	}
	if err := CheckTransport(h.URL, s.Insecure || h.Insecure); err != nil {
		return dial.Target{}, fmt.Errorf("saved host %q: %w (or set insecure: true for it)", h.Name, err)
	}
	if ssh.IsSSH(h.URL) {
		s.Host, s.savedName = h.URL, h.Name
		if s.TokenFile != "" {
			return dial.Target{}, errSSHTokenFile
		}
		return SSHTarget(s, func(k string) string {
			if k == ssh.CommandEnv {
				return sshCommandEnv(k)
			}
			return ""
		}, strings.NewReader(""), io.Discard)
	}
	if s.TokenFile == "" {
		s.TokenFile = h.TokenFile
	}
	s.Host = h.URL
	t, err := URLTarget(s, func(string) string { return "" })
	if err != nil {
		return t, fmt.Errorf("saved host %q: %w", h.Name, err)
	}
	t.Name = h.Name
	return t, nil
}

// ClientOptions are the options that dial target: the client names the
// host by its token-free URL, the dialer alone sends the token, and one
// attempt gives up after dial.AttemptTimeout.
func ClientOptions(target dial.Target, clientID string, info protocol.Implementation, logger *slog.Logger) client.Options {
	return client.Options{
		URL:              target.URL,
		Dial:             target.Dialer(jsonrpc.DefaultReadLimit),
		HandshakeTimeout: dial.AttemptTimeout,
		ClientID:         clientID,
		ClientInfo:       info,
		Logger:           logger.With("component", "protocol"),
	}
}
