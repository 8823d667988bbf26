package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// SchemaVersion is the only registry schema this reader understands;
// entries of any other version are ignored.
const SchemaVersion = 2

// The owners of an entry.
const (
	TypeEditor     = "editor"     // a VS Code window's utility process (socket)
	TypeStandalone = "standalone" // `code agent host` (tcp)
)

// Endpoint is where a host listens, as published.
type Endpoint struct {
	Type string `json:"type"` // "socket" or "tcp"
	Path string `json:"path,omitempty"`
	Host string `json:"host,omitempty"`
	Port int    `json:"port,omitempty"`
}

// Entry is one live agent host. Every string in it came from a file
// another process wrote: quote or sanitize it before it is shown.
type Entry struct {
	SchemaVersion   int      `json:"schemaVersion"`
	Type            string   `json:"type"`
	PID             int      `json:"pid"`
	InstanceID      string   `json:"instanceId"`
	ProtocolVersion string   `json:"protocolVersion"`
	ConnectionToken string   `json:"connectionToken"`
	Endpoint        Endpoint `json:"endpoint"`
	Quality         string   `json:"quality,omitempty"`
	TunnelName      string   `json:"tunnelName,omitempty"`
}

// Identity is the entry's identity and its file's name without ".json":
// the lowercase SHA-256 hex of "type\0pid\0instanceId".
func (e Entry) Identity() string {
	sum := sha256.Sum256([]byte(e.Type + "\x00" + strconv.Itoa(e.PID) + "\x00" + e.InstanceID))
	return hex.EncodeToString(sum[:])
}

// URL names the host without its token: ws+unix:// and the socket's
// path, or ws://host:port/ — what ahptui shows and binds sign-ins to.
func (e Entry) URL() string {
	if e.Endpoint.Type == "socket" {
		return (&url.URL{Scheme: "ws+unix", Path: e.Endpoint.Path}).String()
	}
	return "ws://" + net.JoinHostPort(e.Endpoint.Host, strconv.Itoa(e.Endpoint.Port)) + "/"
}

// Address is the endpoint as a short label: host:port or the socket path.
func (e Entry) Address() string {
	if e.Endpoint.Type == "socket" {
		return e.Endpoint.Path
	}
	return net.JoinHostPort(e.Endpoint.Host, strconv.Itoa(e.Endpoint.Port))
}

// Limits on what one entry may hold; anything longer is not a real
// host's entry.
const (
	maxField     = 512
	maxTokenLen  = 1024
	maxEntryFile = 64 << 10
	maxEntries   = 256
)

var errOtherSchema = errors.New("another schema version")

// validate checks one entry on its own. errOtherSchema means "ignore
// quietly"; any other error names what is wrong.
func (e Entry) validate() error {
	if e.SchemaVersion != SchemaVersion {
		return errOtherSchema
	}
	if e.Type != TypeEditor && e.Type != TypeStandalone {
		return fmt.Errorf("type %q is neither %s nor %s", clip(e.Type), TypeEditor, TypeStandalone)
	}
	if e.PID <= 0 {
		return fmt.Errorf("pid %d is not a process id", e.PID)
	}
	for name, v := range map[string]string{"instanceId": e.InstanceID, "protocolVersion": e.ProtocolVersion} {
		if v == "" || len(v) > maxField || !printable(v) {
			return fmt.Errorf("%s is empty, too long or not printable", name)
		}
	}
	for name, v := range map[string]string{"quality": e.Quality, "tunnelName": e.TunnelName} {
		if len(v) > maxField || !printable(v) {
			return fmt.Errorf("%s is too long or not printable", name)
		}
	}
	if e.ConnectionToken == "" || len(e.ConnectionToken) > maxTokenLen || !printable(e.ConnectionToken) || strings.ContainsRune(e.ConnectionToken, ' ') {
		// The token's text is never quoted: it is a secret.
		return errors.New("connectionToken is empty, too long or not printable")
	}
	switch e.Endpoint.Type {
	case "socket":
		p := e.Endpoint.Path
		if p == "" || len(p) > maxField || !filepath.IsAbs(p) || !printable(p) {
			return errors.New("socket endpoint path is not an absolute path")
		}
	case "tcp":
		if e.Endpoint.Port < 1 || e.Endpoint.Port > 65535 {
			return fmt.Errorf("tcp endpoint port %d is not 1-65535", e.Endpoint.Port)
		}
		// The registry lists hosts on this machine; a token sent over
		// plain ws:// must not leave it.
		if !localHost(e.Endpoint.Host) {
			return fmt.Errorf("tcp endpoint host %q is not this machine", clip(e.Endpoint.Host))
		}
	default:
		return fmt.Errorf("endpoint type %q is neither socket nor tcp", clip(e.Endpoint.Type))
	}
	return nil
}

// localHost says whether a published tcp host is this machine: loopback,
// localhost, or the unspecified address a listener on every interface
// publishes.
func localHost(h string) bool {
	if strings.EqualFold(strings.TrimSuffix(h, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
			return false
		}
	}
	return true
}

// clip is host text cut short and quoted safe for an error message.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.QuoteToASCII(s)[1 : len(strconv.QuoteToASCII(s))-1]
}
