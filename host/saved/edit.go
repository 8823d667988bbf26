package saved

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// The default host and the edits `ahptui hosts add|rm` make. hosts.yml
// is a file people edit, so an edit changes the one entry in the YAML
// document and keeps the rest (comments included); the file is written
// owner-only (0600) through a new file renamed into place, after the
// same checks as a read: a symlink, or a file or directory that is not
// ours or that others can write, is refused, never written through.

// Default is the default host hosts.yml names (its `default:` member),
// "" when none; a default that names no saved host is an error.
func Default(dir string) (string, error) {
	path := filepath.Join(dir, FileName)
	b, err := readOwnerOnly(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var f file
	if err := yaml.Unmarshal(b, &f); err != nil {
		return "", fmt.Errorf("%s: %w: fix the file", path, err)
	}
	if f.Default == "" {
		return "", nil
	}
	if _, ok := f.Hosts[f.Default]; !ok {
		return "", fmt.Errorf("%s: default %q names no saved host: fix the file, or ahptui hosts add %s URL", path, f.Default, f.Default)
	}
	return f.Default, nil
}

// Add saves h (replacing a host of its name; replaced says so), making
// it the default when makeDefault is set. h.TokenFile is written as
// given: give an absolute path, or one relative to dir.
func Add(dir string, h Host, makeDefault bool) (replaced bool, err error) {
	if err := h.check(); err != nil {
		return false, fmt.Errorf("host %q: %w", h.Name, err)
	}
	err = edit(dir, func(doc *yaml.Node) error {
		hosts := member(doc, "hosts", true)
		var entry yaml.Node
		if err := entry.Encode(h); err != nil {
			return err
		}
		replaced = setMember(hosts, h.Name, &entry)
		if makeDefault {
			setMember(doc, "default", &yaml.Node{Kind: yaml.ScalarNode, Value: h.Name})
		}
		return nil
	})
	return replaced, err
}

// ErrNotSaved matches (errors.Is) Remove's error for a name no saved
// host has: a command reports it as not found, not as a broken file.
var ErrNotSaved = errors.New("no saved host")

// Remove forgets the saved host name (and the default, if it was it).
func Remove(dir, name string) error {
	return edit(dir, func(doc *yaml.Node) error {
		hosts := member(doc, "hosts", false)
		if hosts == nil || !deleteMember(hosts, name) {
			return fmt.Errorf("%w %q in %s", ErrNotSaved, name, filepath.Join(dir, FileName))
		}
		if d := member(doc, "default", false); d != nil && d.Value == name {
			deleteMember(doc, "default")
		}
		return nil
	})
}

// edit reads hosts.yml (none yet: an empty document, the directory made
// owner-only), lets change edit its top mapping, checks the result reads
// back as saved hosts, and writes it.
func edit(dir string, change func(doc *yaml.Node) error) error {
	path := filepath.Join(dir, FileName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := readOwnerOnly(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return fmt.Errorf("%s: %w: fix the file", path, err)
	}
	if root.Kind == 0 {
		root = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("%s is not a mapping of hosts: fix the file", path)
	}
	if err := change(root.Content[0]); err != nil {
		return err
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	var f file
	if err := yaml.Unmarshal(out.Bytes(), &f); err != nil {
		return fmt.Errorf("%s: the edit does not read back: %w", path, err)
	}
	return writeOwnerOnly(path, out.Bytes())
}

// writeOwnerOnly replaces path with b, mode 0600: a new file in the same
// directory renamed over it (a symlink there is replaced, not followed).
func writeOwnerOnly(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+FileName+".*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	if err := tmp.Chmod(0o600); werr == nil {
		werr = err
	}
	if err := tmp.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// member is the value of key in mapping m (a new empty mapping added when
// create is set and there is none; nil otherwise).
func member(m *yaml.Node, key string, create bool) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			if create && v.Kind != yaml.MappingNode {
				// hosts: with nothing under it reads as null.
				*v = yaml.Node{Kind: yaml.MappingNode}
			}
			return v
		}
	}
	if !create {
		return nil
	}
	v := &yaml.Node{Kind: yaml.MappingNode}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	return v
}

// setMember sets key to v in mapping m; true when it was there before.
func setMember(m *yaml.Node, key string, v *yaml.Node) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return true
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	return false
}

// deleteMember removes key from mapping m; false when it was not there.
func deleteMember(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return true
		}
	}
	return false
}
