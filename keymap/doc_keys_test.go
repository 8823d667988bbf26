package keymap

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateKeysDoc = flag.Bool("update", false, "write docs/keys.md from the key map")

// TestKeysDoc keeps docs/keys.md what the key map says, context by
// context, and every context described.
func TestKeysDoc(t *testing.T) {
	const path = "../docs/keys.md"
	want := DefaultKeyMap().Markdown()
	if *updateKeysDoc {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./keymap -run TestKeysDoc -update writes it)", err)
	}
	if string(got) != want {
		t.Fatalf("%s is not what the key map says: go test ./keymap -run TestKeysDoc -update", path)
	}
	for _, ctx := range Contexts {
		if contextAbout[ctx] == "" {
			t.Errorf("context %s has no description for docs/keys.md", ctx)
		}
		if !strings.Contains(want, "\n## "+ctx.String()+"\n") {
			t.Errorf("docs/keys.md has no table for %s", ctx)
		}
	}
}
