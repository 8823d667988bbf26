package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// RemoteProducts are the user-data directories under the remote's
// ${XDG_CONFIG_HOME:-~/.config} whose registries a remote read lists:
// Products, and code-oss (the name Linux distributions' builds use).
var RemoteProducts = append(append([]string(nil), Products...), "code-oss")

// Node is one file or directory as a remote listing (`ls -lnd`, run on
// the remote over ssh) describes it. The remote read applies the same
// rules to these that Read applies to the local files it stats.
type Node struct {
	Path    string
	Exists  bool
	Dir     bool
	Symlink bool
	Regular bool
	Perm    fs.FileMode // the permission bits
	UID     int
	Nlink   int
	Data    []byte // a file's contents (entry files only)
}

// Listing is what a read of a remote registry reports: the remote user's
// uid, every registry directory and entry file it found, the owner of
// each live pid named in them, and, when the remote has VS Code's CLI,
// what `code agent endpoints` printed (Endpoints, with EndpointsErr
// when it failed).
type Listing struct {
	UID   int
	Nodes []Node
	// Procs is the uid of each pid the entries name that is running.
	Procs map[int]int
	// Endpoints is `code agent endpoints`' output, when it ran.
	Endpoints    []byte
	EndpointsRan bool
	EndpointsErr string
}

// ErrUnreadable is a remote registry that could not be read at all (a
// directory refused, `code agent endpoints` failing): not "no hosts".
var ErrUnreadable = errors.New("registry unreadable")

// RemoteResult is Result for a remote read, with where the entries came
// from (UserDataPath, when `code agent endpoints` named it) and Refused,
// the reasons a registry that exists could not be read (its directory
// open to others, say) — so "no host" and "unreadable" differ.
type RemoteResult struct {
	Result
	UserDataPath string
	FromCLI      bool
	Refused      []string
}

// ReadRemote applies the local registry's rules to a remote listing:
// directories owner-only and the remote user's, entry files the remote
// user's, 0600-ish, single-linked and named after their identity, every
// entry validated alone (another schema version ignored), and each pid
// running as the remote user. `code agent endpoints`' entries, when it
// ran, are taken as its JSON lists them (it read the files) and checked
// the same way, pid included.
func ReadRemote(l Listing) RemoteResult {
	var r RemoteResult
	skip := func(format string, a ...any) { r.Skipped = append(r.Skipped, fmt.Sprintf(format, a...)) }
	alive := func(pid int) bool {
		uid, ok := l.Procs[pid]
		return ok && uid == l.UID
	}
	var found []Entry
	if l.EndpointsRan {
		r.FromCLI = true
		if l.EndpointsErr != "" {
			r.Refused = append(r.Refused, "code agent endpoints failed: "+clip(l.EndpointsErr))
		} else if es, udp, err := decodeEndpoints(l.Endpoints); err != nil {
			r.Refused = append(r.Refused, "code agent endpoints: "+err.Error())
		} else {
			r.UserDataPath = udp
			for i, raw := range es {
				e, err := decode(raw)
				if err != nil {
					if !errors.Is(err, errOtherSchema) {
						skip("code agent endpoints entry %d: %v", i, err)
					}
					continue
				}
				found = append(found, e)
			}
		}
	} else {
		nodes := map[string]Node{}
		for _, n := range l.Nodes {
			nodes[n.Path] = n
		}
		dirOK := func(p string, mask fs.FileMode, openTo string) (bool, error) {
			n, ok := nodes[p]
			if !ok || !n.Exists {
				return false, nil
			}
			switch {
			case n.Symlink:
				return false, fmt.Errorf("%s is a symlink; the registry is ignored", p)
			case !n.Dir:
				return false, fmt.Errorf("%s is not a directory; the registry is ignored", p)
			case n.Perm&mask != 0:
				return false, fmt.Errorf("%s is "+openTo+"; the registry is ignored", p, n.Perm)
			case n.UID != l.UID:
				return false, fmt.Errorf("%s belongs to uid %d, not the remote user (%d); the registry is ignored", p, n.UID, l.UID)
			}
			return true, nil
		}
		for _, n := range l.Nodes {
			if path.Base(n.Path) != "agent-host" {
				continue
			}
			le := path.Join(n.Path, "local-endpoint")
			en := path.Join(le, "entries")
			ok := true
			for _, c := range []struct {
				p    string
				mask fs.FileMode
				msg  string
			}{{n.Path, 0o022, "writable by other users (mode %04o)"}, {le, 0o077, "open to other users (mode %04o, want 0700)"}, {en, 0o077, "open to other users (mode %04o, want 0700)"}} {
				good, err := dirOK(c.p, c.mask, c.msg)
				if err != nil {
					r.Refused = append(r.Refused, err.Error())
				}
				if !good {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			count := 0
			for _, f := range l.Nodes {
				if path.Dir(f.Path) != en || !strings.HasSuffix(f.Path, ".json") {
					continue
				}
				if count++; count > maxEntries {
					skip("%s: more than %d entries; the rest ignored", en, maxEntries)
					break
				}
				switch {
				case !f.Regular || f.Symlink:
					skip("%s: not a regular file (a symlink?); ignored", f.Path)
					continue
				case f.Perm&0o077 != 0:
					skip("%s: open to other users (mode %04o, want 0600); ignored", f.Path, f.Perm)
					continue
				case f.UID != l.UID:
					skip("%s: belongs to uid %d, not the remote user; ignored", f.Path, f.UID)
					continue
				case f.Nlink != 1:
					skip("%s: has %d hard links, want 1; ignored", f.Path, f.Nlink)
					continue
				case len(f.Data) > maxEntryFile:
					skip("%s: larger than %d bytes; ignored", f.Path, maxEntryFile)
					continue
				}
				e, err := decode(f.Data)
				if err != nil {
					if !errors.Is(err, errOtherSchema) {
						skip("%s: %v", f.Path, err)
					}
					continue
				}
				if path.Base(f.Path) != e.Identity()+".json" {
					skip("%s: the file is not named after its entry's identity", f.Path)
					continue
				}
				found = append(found, e)
			}
		}
	}
	for _, e := range dedupe(found) {
		if !alive(e.PID) {
			skip("%s pid %d: not running, or not the remote user's", e.Type, e.PID)
			continue
		}
		r.Entries = append(r.Entries, e)
	}
	return r
}

// decodeEndpoints reads `code agent endpoints`' JSON, {userDataPath,
// endpoints: [entry…]}: the whole output, else its last line (as VS
// Code's own reader does).
func decodeEndpoints(b []byte) ([]json.RawMessage, string, error) {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil, "", errors.New("printed nothing")
	}
	cands := []string{s}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		cands = append(cands, strings.TrimSpace(s[i+1:]))
	}
	for _, c := range cands {
		var doc struct {
			UserDataPath string            `json:"userDataPath"`
			Endpoints    []json.RawMessage `json:"endpoints"`
		}
		if err := json.Unmarshal([]byte(c), &doc); err == nil && doc.Endpoints != nil {
			if !printable(doc.UserDataPath) || len(doc.UserDataPath) > maxField {
				return nil, "", errors.New("userDataPath is too long or not printable")
			}
			if len(doc.Endpoints) > maxEntries {
				doc.Endpoints = doc.Endpoints[:maxEntries]
			}
			return doc.Endpoints, doc.UserDataPath, nil
		}
	}
	return nil, "", fmt.Errorf("unparsable output (%d bytes)", len(b))
}
