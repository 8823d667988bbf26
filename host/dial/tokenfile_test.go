//go:build unix

package dial

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadTokenFileIsPrivate: a connection token file must be the
// user's own regular file, 0600 or stricter, not a symlink — else a
// planted hosts.yml could name any file of the user's (a line of it sent
// as ?tkn=) and a 0644 one is anyone's to read.
func TestReadTokenFileIsPrivate(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(secret+"\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, mode := range []os.FileMode{0o600, 0o400} {
		if tok, err := ReadTokenFile(write("ok", mode)); err != nil || tok != secret {
			t.Errorf("a %04o file: %q, %v", mode, tok, err)
		}
		os.Remove(filepath.Join(dir, "ok"))
	}
	open := write("open", 0o644)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(write("target", 0o600), link); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		open: "chmod 600 " + open,
		link: "symlink",
		dir:  "not a regular file",
	}
	if os.Geteuid() == 0 {
		theirs := write("theirs", 0o600)
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases[theirs] = "belongs to uid 65534"
	}
	for path, want := range cases {
		tok, err := ReadTokenFile(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadTokenFile(%s) = %q, %v; want an error saying %q", path, tok, err, want)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows the token: %v", err)
		}
	}
}
