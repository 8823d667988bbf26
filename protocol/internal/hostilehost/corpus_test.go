package hostilehost_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/internal/hostilehost"
)

// TestHostileCorpus keeps testdata/hostile in step with the payloads the
// hostile host sends (regenerate with -record), and checks each file is one
// JSON document, as the union fuzzer's seeding expects.
func TestHostileCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "hostile")
	corpus := hostilehost.Corpus()
	for name, doc := range taintedDemoStates(t) {
		corpus[name] = doc
	}
	for name, want := range corpus {
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

// taintedDemoStates poisons every text field of the states the recorded
// demohost sessions ended with (MCP servers, tool calls, reasoning, input
// requests…), for renderers to be tested against the richest real states.
func taintedDemoStates(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "transcripts", "*.jsonl"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
		var last struct {
			Final map[string]json.RawMessage `json:"final"`
		}
		if err := json.Unmarshal(lines[len(lines)-1], &last); err != nil || last.Final == nil {
			t.Fatalf("%s: last line is not the final state", file)
		}
		base := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		for ch, st := range last.Final {
			kind, _, _ := strings.Cut(strings.TrimPrefix(ch, "ahp-"), ":")
			out["tainted-"+base+"-"+kind+".json"] = hostilehost.Taint(st, hostilehost.AllEscapes())
		}
	}
	return out
}

// TestSampleTerminalDecodes: the hostile terminal decodes as a terminal
// on its channel, tainted or not, and carries the hostile stream whole.
func TestSampleTerminalDecodes(t *testing.T) {
	for _, raw := range []json.RawMessage{hostilehost.SampleTerminal, hostilehost.TaintedTerminal(hostilehost.AllEscapes())} {
		st, err := protocol.DecodeSnapshotState(hostilehost.SampleTerminalURI, raw)
		if err != nil {
			t.Fatal(err)
		}
		term, ok := st.Variant.(protocol.TerminalState)
		if !ok || len(term.Content) != 2 {
			t.Fatalf("decoded %T %+v", st.Variant, st.Variant)
		}
		if v := term.Content[0].Variant.(protocol.TerminalUnclassifiedPart).Value.String(); v != hostilehost.HostileTerminalOutput {
			t.Errorf("the stream is not the hostile output: %q", v)
		}
	}
	root, err := protocol.DecodeSnapshotState("ahp-root://", hostilehost.SampleRootWithTerminal)
	if err != nil || len(root.Variant.(protocol.RootState).Terminals) != 1 {
		t.Fatalf("root: %v %+v", err, root.Variant)
	}
}
