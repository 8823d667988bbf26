// Package saved reads the user's named hosts from hosts.yml in
// ahptui's config directory:
//
//	hosts:
//	  work:
//	    url: wss://agents.example.com/alice
//	    connection_token_file: work.token   # relative to the config dir
//	  box:
//	    url: ws://10.0.0.5:35893/
//	    insecure: true
//
// YAML, as gh keeps its hosts.yml: people edit this file by hand, and
// YAML takes comments. The file and its directory must be the user's
// own, not writable by anyone else and not symlinks: a planted entry
// could send a saved token anywhere, or name any file as its token file
// (host/dial.ReadTokenFile refuses one that is not private). A connection token is never written in the file,
// only the file it is in.
//
// It imports no UI package.
package saved

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// FileName is the saved hosts' file in the config directory.
const FileName = "hosts.yml"

// Host is one saved host.
type Host struct {
	Name string `yaml:"-"`
	// URL is ws:// or wss://, with no query: the token comes from
	// TokenFile.
	URL string `yaml:"url"`
	// TokenFile holds the host's connection token; a relative path is
	// relative to the config directory, ~/ to the home directory.
	TokenFile string `yaml:"connection_token_file,omitempty"`
	// Insecure allows plain ws:// to another machine (--insecure).
	Insecure bool `yaml:"insecure,omitempty"`
}

type file struct {
	// Default is the host used when none is named (edit.go).
	Default string          `yaml:"default,omitempty"`
	Hosts   map[string]Host `yaml:"hosts"`
}

// nameRE is compiled on first use: its {0,63} makes it the costliest of
// this package's start-up (issue 32), and most runs never ask.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// ValidName says whether s can name a saved host (and so is not a URL).
func ValidName(s string) bool { return nameRE().MatchString(s) }

// Load reads dir/hosts.yml, sorted by name; a missing file is no hosts.
func Load(dir string) ([]Host, error) {
	path := filepath.Join(dir, FileName)
	b, err := readOwnerOnly(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f file
	if err := yaml.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w: fix the file", path, err)
	}
	var hosts []Host
	for name, h := range f.Hosts {
		h.Name = name
		if err := h.check(); err != nil {
			return nil, fmt.Errorf("%s: host %q: %w", path, name, err)
		}
		if h.TokenFile != "" {
			h.TokenFile = resolvePath(dir, h.TokenFile)
		}
		hosts = append(hosts, h)
	}
	slices.SortFunc(hosts, func(a, b Host) int { return strings.Compare(a.Name, b.Name) })
	return hosts, nil
}

// Find is the saved host called name.
func Find(hosts []Host, name string) (Host, bool) {
	for _, h := range hosts {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}

func (h Host) check() error {
	if !ValidName(h.Name) {
		return errors.New("a name is letters, digits, '.', '_' and '-', at most 64")
	}
	u, err := url.Parse(h.URL)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss" && u.Scheme != "ssh") || u.Host == "" {
		return errors.New("url must be ws://HOST:PORT/, wss://HOST[:PORT]/ or ssh://[USER@]BOX[:PORT]")
	}
	if u.Scheme == "ssh" {
		// The box's login is part of an ssh host's address; its
		// token comes from the box, never from a file.
		if _, has := u.User.Password(); has || u.RawQuery != "" || h.TokenFile != "" {
			return errors.New("an ssh:// url carries no password or query, and takes no connection_token_file: the box publishes its token")
		}
		return nil
	}
	if u.RawQuery != "" || u.User != nil {
		return errors.New("url carries a query or user info; put the connection token in connection_token_file")
	}
	return nil
}

func resolvePath(dir, p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// readOwnerOnly reads path, refusing a symlink, or a file or directory
// that is not ours or that others can write. The file is checked on the
// open file (opened without following a symlink), so the file read is
// the one checked. Others may read it: it holds no token.
func readOwnerOnly(path string) ([]byte, error) {
	for _, p := range []string{filepath.Dir(path), path} {
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		if err := checkOwned(p, fi); err != nil {
			return nil, err
		}
	}
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkOwned(path, fi); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: replace it with the file", path)
	}
	return io.ReadAll(io.LimitReader(f, maxFile))
}

// maxFile bounds what hosts.yml may hold.
const maxFile = 1 << 20

// checkOwned refuses a symlink, and what others can write or another
// user owns.
func checkOwned(p string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink; saved hosts are not read through one: replace it with the file", p)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by other users (mode %04o): chmod go-w %s", p, fi.Mode().Perm(), p)
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to uid %d, not to you: saved hosts are read only from your own files", p, uid)
	}
	return nil
}
