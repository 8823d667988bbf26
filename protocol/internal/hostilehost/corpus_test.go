package hostilehost_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/hostilehost"
)

// TestHostileCorpus keeps testdata/hostile in step with the payloads the
// hostile host sends (regenerate with -record), and checks each file is one
// JSON document, as the union fuzzer's seeding expects.
func TestHostileCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "hostile")
	for name, want := range hostilehost.Corpus() {
		path := filepath.Join(dir, name)
		if *record {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (regenerate with -record)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date; regenerate with go test ./protocol/internal/hostilehost -run TestHostileCorpus -record", name)
		}
		if !json.Valid(got) {
			t.Errorf("%s is not one JSON document", name)
		}
	}
}
