package ssh

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/ahptui/ahptui/host/dial"
)

// Scheme is the URL scheme of a host reached over SSH.
const Scheme = "ssh"

// Form is the shape an ssh --host takes, quoted in refusals.
const Form = "ssh://[USER@]BOX[:PORT]"

// Addr is an ssh:// host as given: the box, and the user and port when
// the URL names them (ssh's config decides them otherwise). Type and
// Instance, when the URL's path names them (/TYPE/INSTANCE, as an
// identity spells it), pick one of the box's agent hosts.
type Addr struct {
	User     string
	Host     string
	Port     int
	Type     string
	Instance string
}

// IsSSH says whether raw is an ssh:// URL.
func IsSSH(raw string) bool {
	s := strings.TrimSpace(raw)
	return len(s) > 6 && strings.EqualFold(s[:6], "ssh://")
}

// Parse reads ssh://[user@]box[:port][/TYPE/INSTANCE]. It refuses what
// ssh would read as an option (a box or user starting with '-'), a
// password, a query and anything but a box name or address; its errors
// quote the URL without any password.
func Parse(raw string) (Addr, error) {
	shown := dial.RedactPassword(raw)
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !strings.EqualFold(u.Scheme, Scheme) || u.Opaque != "" {
		return Addr{}, fmt.Errorf("%q is not an ssh URL: give %s", shown, Form)
	}
	var a Addr
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return Addr{}, fmt.Errorf("%q carries a password; ssh takes keys, an agent or its own prompt: give %s", shown, Form)
		}
		a.User = u.User.Username()
		if a.User == "" || !safeWord(a.User) {
			return Addr{}, fmt.Errorf("%q: the user name %q is not one ssh takes: give %s", shown, a.User, Form)
		}
	}
	a.Host = u.Hostname()
	if a.Host == "" || !safeWord(a.Host) {
		return Addr{}, fmt.Errorf("%q names no box ssh can take: give %s", shown, Form)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Addr{}, fmt.Errorf("%q has port %q, not 1-65535: give %s", shown, p, Form)
		}
		a.Port = n
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return Addr{}, fmt.Errorf("%q has a query or fragment; an ssh host's token comes from the box: give %s", shown, Form)
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		typ, inst, ok := strings.Cut(p, "/")
		if !ok || typ == "" || inst == "" || strings.Contains(inst, "/") {
			return Addr{}, fmt.Errorf("%q: the path names an agent host as /TYPE/INSTANCE, or is empty: give %s", shown, Form)
		}
		a.Type, a.Instance = typ, inst
	}
	return a, nil
}

// safeWord: a user or box name that ssh reads as one, never as an
// option: no leading '-', no space or control character, no shell
// metacharacter that a ProxyCommand's %h/%r could carry.
func safeWord(s string) bool {
	if s == "" || s[0] == '-' || len(s) > 255 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("._-:", r):
		default:
			return false
		}
	}
	return true
}

// Box is the box's identity, ssh://user@box:port, with user and port as
// ssh resolved them.
func (a Addr) Box() string {
	u := url.URL{Scheme: Scheme, User: url.User(a.User), Host: joinHostPort(strings.ToLower(a.Host), a.Port)}
	if a.User == "" {
		u.User = nil
	}
	return u.String()
}

// Identity is the identity of the box's agent host of type typ and
// instance inst: ssh://user@box:port/TYPE/INSTANCE.
func (a Addr) Identity(typ, inst string) string {
	return a.Box() + "/" + url.PathEscape(typ) + "/" + url.PathEscape(inst)
}

func joinHostPort(h string, port int) string {
	if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
		h = "[" + h + "]"
	}
	if port == 0 {
		return h
	}
	return h + ":" + strconv.Itoa(port)
}

// ErrNoSSH is a missing ssh binary.
var ErrNoSSH = errors.New("ssh not found")
