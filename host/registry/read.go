package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Products are the VS Code builds whose registries are read.
var Products = []string{"Code", "Code - Insiders", "Code - OSS"}

// Env is what locating the registry reads from the environment; tests
// point it at a temporary directory.
type Env struct {
	GOOS   string
	Getenv func(string) string
	Home   string
}

// UserDataDirs are the user-data directories of every product, in
// Products' order: VSCODE_PORTABLE/user-data, else VSCODE_APPDATA/<product>,
// else the platform's default.
func (e Env) UserDataDirs() []string {
	if p := e.Getenv("VSCODE_PORTABLE"); p != "" {
		return []string{filepath.Join(p, "user-data")}
	}
	base := e.Getenv("VSCODE_APPDATA")
	if base == "" {
		switch e.GOOS {
		case "windows":
			base = e.Getenv("APPDATA")
		case "darwin":
			base = filepath.Join(e.Home, "Library", "Application Support")
		default:
			base = e.Getenv("XDG_CONFIG_HOME")
			if base == "" {
				base = filepath.Join(e.Home, ".config")
			}
		}
	}
	if base == "" {
		return nil
	}
	dirs := make([]string, len(Products))
	for i, p := range Products {
		dirs[i] = filepath.Join(base, p)
	}
	return dirs
}

// RegistryDir is a user-data directory's registry.
func RegistryDir(userData string) string {
	return filepath.Join(userData, "agent-host", "local-endpoint")
}

// Result is what reading found: the live hosts, and why anything else was
// left out (one line each, for `ahptui hosts` and the log; no token).
type Result struct {
	Entries []Entry
	Skipped []string
}

// Discover reads every product's registry. alive says whether a pid runs.
func Discover(env Env, alive func(pid int) bool) Result {
	var all Result
	for _, d := range env.UserDataDirs() {
		r := Read(RegistryDir(d), alive)
		all.Entries = append(all.Entries, r.Entries...)
		all.Skipped = append(all.Skipped, r.Skipped...)
	}
	all.Entries = dedupe(all.Entries)
	return all
}

// Read reads one registry directory: entries/*.json, then the legacy
// metadata.json, whose entries lose to an entry file of the same
// identity. A missing registry is no hosts, not an error.
func Read(dir string, alive func(pid int) bool) Result {
	var r Result
	skip := func(format string, a ...any) { r.Skipped = append(r.Skipped, fmt.Sprintf(format, a...)) }
	for _, check := range []func() error{
		func() error { return notOthersDir(filepath.Dir(dir)) },
		func() error { return ownerOnlyDir(dir) },
	} {
		if err := check(); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				skip("%v", err)
			}
			return r
		}
	}
	var found []Entry
	// Legacy first, so entry files win a collision.
	legacy := filepath.Join(dir, "metadata.json")
	if b, err := readRegular(legacy, 0o022); err == nil {
		var raws []json.RawMessage
		if err := json.Unmarshal(b, &raws); err != nil {
			skip("%s: not a JSON array: %v", legacy, err)
		}
		for i, raw := range raws {
			if i >= maxEntries {
				skip("%s: more than %d entries; the rest ignored", legacy, maxEntries)
				break
			}
			e, err := decode(raw)
			if err != nil {
				if !errors.Is(err, errOtherSchema) {
					skip("%s entry %d: %v", legacy, i, err)
				}
				continue
			}
			found = append(found, e)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		skip("%v", err)
	}

	entries := filepath.Join(dir, "entries")
	if err := ownerOnlyDir(entries); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			skip("%v", err)
		}
	} else if des, err := os.ReadDir(entries); err != nil {
		skip("read %s: %v", entries, err)
	} else {
		n := 0
		for _, de := range des {
			name := de.Name()
			if !strings.HasSuffix(name, ".json") {
				continue // temporary files and anything else
			}
			if n++; n > maxEntries {
				skip("%s: more than %d entries; the rest ignored", entries, maxEntries)
				break
			}
			path := filepath.Join(entries, name)
			b, err := readRegular(path, 0o077)
			if err != nil {
				skip("%v", err)
				continue
			}
			e, err := decode(b)
			if err != nil {
				if !errors.Is(err, errOtherSchema) {
					skip("%s: %v", path, err)
				}
				continue
			}
			if name != e.Identity()+".json" {
				skip("%s: the file is not named after its entry's identity", path)
				continue
			}
			found = append(found, e)
		}
	}
	for _, e := range dedupe(found) {
		if !alive(e.PID) {
			skip("%s pid %d: not running, or not yours", e.Type, e.PID)
			continue
		}
		r.Entries = append(r.Entries, e)
	}
	return r
}

// decode parses and validates one entry.
func decode(b []byte) (Entry, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	var e Entry
	if err := d.Decode(&e); err != nil {
		return Entry{}, fmt.Errorf("malformed: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return Entry{}, errors.New("malformed: more than one JSON value")
	}
	if err := e.validate(); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// dedupe keeps one entry per identity, the last one read, at the first
// one's place, then sorts them: standalone before editor, then by pid and
// instance.
func dedupe(es []Entry) []Entry {
	at := map[string]int{}
	var out []Entry
	for _, e := range es {
		id := e.Identity()
		if i, ok := at[id]; ok {
			out[i] = e
			continue
		}
		at[id] = len(out)
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		if a.Type != b.Type {
			if a.Type == TypeStandalone {
				return -1
			}
			return 1
		}
		if a.PID != b.PID {
			return a.PID - b.PID
		}
		return strings.Compare(a.InstanceID, b.InstanceID)
	})
	return out
}

// readRegular reads a regular file (not a symlink) of ours with one link
// and no mode bit of mask, at most maxEntryFile bytes. The checks are
// made on the open file, so the file read is the file checked.
func readRegular(path string, mask os.FileMode) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (a symlink?); ignored", path)
	}
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file; ignored", path)
	}
	if err := checkFile(path, fi, mask); err != nil {
		return nil, err
	}
	if fi.Size() > maxEntryFile {
		return nil, fmt.Errorf("%s: larger than %d bytes; ignored", path, maxEntryFile)
	}
	return io.ReadAll(io.LimitReader(f, maxEntryFile+1))
}
