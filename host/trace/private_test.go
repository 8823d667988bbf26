//go:build unix

package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenPrivate: a new --trace or --log file is created 0600 whatever
// the umask; one of ours that is 0600 is appended to; a symlink (to a
// file of the user's, say) and a file others can read are refused and
// left as they were.
func TestOpenPrivate(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh")
	f, err := OpenPrivate(fresh)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("one\n")
	f.Close()
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("a new file: %v, %v; want mode 0600", fi.Mode(), err)
	}
	f, err = OpenPrivate(fresh)
	if err != nil {
		t.Fatalf("our own 0600 file: %v", err)
	}
	f.WriteString("two\n")
	f.Close()
	if b, _ := os.ReadFile(fresh); string(b) != "one\ntwo\n" {
		t.Errorf("the file holds %q, want both lines appended", b)
	}

	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o644)
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard")
	if err := os.Link(victim, hard); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{link: "symlink", dangling: "symlink", open: "open to other users", hard: "hard links"} {
		f, err := OpenPrivate(path)
		if err == nil {
			f.Close()
			t.Errorf("OpenPrivate(%s) opened it", filepath.Base(path))
			continue
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("OpenPrivate(%s): %v; want it to name the file and say %q", filepath.Base(path), err, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("a dangling symlink's target was created")
	}
	for _, p := range []string{victim, open} {
		if b, _ := os.ReadFile(p); string(b) != "keep\n" {
			t.Errorf("%s was written: %q", filepath.Base(p), b)
		}
	}
	if fi, _ := os.Stat(open); fi.Mode().Perm() != 0o644 {
		t.Errorf("the refused file's mode changed to %v", fi.Mode())
	}
	// Create (--trace) goes through the same rule.
	if _, err := Create(link); err == nil || !strings.Contains(err.Error(), "--trace") {
		t.Errorf("Create through a symlink: %v", err)
	}
}
