package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// unionTargets are the wire types FuzzUnionDecode decodes arbitrary bytes as:
// every union the host sends at the top of a frame's payload plus the
// envelope and snapshot that carry them. The index is the fuzzer's first
// argument, so appending keeps old corpus entries meaningful.
var unionTargets = []struct {
	name string
	new  func() any
}{
	{"StateAction", func() any { return new(StateAction) }},
	{"ActionEnvelope", func() any { return new(ActionEnvelope) }},
	{"ResponsePart", func() any { return new(ResponsePart) }},
	{"ToolCallState", func() any { return new(ToolCallState) }},
	{"Customization", func() any { return new(Customization) }},
	{"McpServerState", func() any { return new(McpServerState) }},
	{"SessionInputRequest", func() any { return new(SessionInputRequest) }},
	{"ChatInputQuestion", func() any { return new(ChatInputQuestion) }},
	{"Snapshot", func() any { return new(Snapshot) }},
}

// maxUnionFuzzInput keeps one iteration cheap: the shapes matter, not size
// (the hostile-host tests cover size).
const maxUnionFuzzInput = 64 << 10

// FuzzUnionDecode decodes arbitrary bytes as each union type. Properties:
//   - decoding never panics, whatever the bytes;
//   - whatever decodes also encodes, and that encoding decodes again and
//     re-encodes to the same bytes (the round trip is idempotent), so a
//     client that forwards or stores a host value cannot drift it.
//
// Seeds: every reducer fixture's actions (as StateAction and wrapped in an
// ActionEnvelope), the round-trip fixtures, the hostile payloads in
// ../testdata/hostile and every params/result object of the recorded
// transcripts in ../testdata/transcripts, each tried as every type.
func FuzzUnionDecode(f *testing.F) {
	for _, s := range unionSeeds(f) {
		if s.target >= 0 {
			f.Add(uint8(s.target), s.data)
			continue
		}
		for i := range unionTargets {
			f.Add(uint8(i), s.data)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		if len(data) > maxUnionFuzzInput {
			return
		}
		target := unionTargets[int(which)%len(unionTargets)]
		v := target.new()
		if json.Unmarshal(data, v) != nil {
			return
		}
		enc1, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s decoded %q but cannot encode it: %v", target.name, data, err)
		}
		v2 := target.new()
		if err := json.Unmarshal(enc1, v2); err != nil {
			t.Fatalf("%s: own encoding %s does not decode: %v (input %q)", target.name, enc1, err, data)
		}
		enc2, err := json.Marshal(v2)
		if err != nil {
			t.Fatalf("%s: re-decoded value cannot encode: %v", target.name, err)
		}
		if !bytes.Equal(enc1, enc2) {
			t.Fatalf("%s round trip not idempotent:\n input %q\n enc1  %s\n enc2  %s", target.name, data, enc1, enc2)
		}
	})
}

type unionSeed struct {
	target int // index into unionTargets, or -1 for every target
	data   []byte
}

// unionSeeds gathers the seed documents, deduplicated by shape: a document
// whose structure (see jsonShape: member names, value kinds and the
// discriminator values) repeats one already kept for the same target adds
// no coverage, only baseline-coverage time — the short CI fuzz run spent
// ~8 of its 10 s replaying ~1,870 seeds before it fuzzed at all. Seeds
// whose type is known go to that target only; the rest go to each target
// that decodes them (the hand-written shapes at the end go to all, so the
// error paths stay seeded).
func unionSeeds(tb testing.TB) []unionSeed {
	tb.Helper()
	var seeds []unionSeed
	seen := map[string]bool{}
	addTo := func(target int, b []byte) {
		b = bytes.TrimSpace(b)
		if len(b) == 0 || len(b) > maxUnionFuzzInput {
			return
		}
		key := strconv.Itoa(target) + " " + jsonShape(b)
		if target == 1 {
			// The envelope decoder hands its action to StateAction's,
			// which target 0 seeds with every action shape: one envelope
			// per action type (and per envelope member set) is enough.
			var env struct {
				Action struct {
					Type string `json:"type"`
				} `json:"action"`
			}
			_ = json.Unmarshal(b, &env)
			key = "1 " + env.Action.Type + " " + topKeys(b)
		}
		if seen[key] {
			return
		}
		seen[key] = true
		seeds = append(seeds, unionSeed{target, bytes.Clone(b)})
	}
	add := func(b []byte) {
		for i, tgt := range unionTargets {
			if v := tgt.new(); json.Unmarshal(bytes.TrimSpace(b), v) == nil && knownVariant(v) {
				addTo(i, b)
			}
		}
	}
	// nested seeds the unions found inside documents (response parts,
	// tool call states, customizations, input requests…) from every
	// object nested in b, so those targets get the fixtures' diversity too.
	nested := func(b []byte) {
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		walkObjects(v, func(o map[string]any) {
			if ob, err := json.Marshal(o); err == nil {
				add(ob)
			}
		})
	}
	fixtures := parsedReducerFixtures(tb)
	for i, fx := range fixtures {
		nested(fx.Initial)
		for _, a := range fx.Actions {
			addTo(0, a)
			nested(a)
			env, _ := json.Marshal(map[string]any{"channel": "ahp-session:/s1", "action": a, "serverSeq": i + 1})
			addTo(1, env)
		}
	}
	rt, _ := filepath.Glob(filepath.Join(fixtureDir(tb, "round-trips"), "*.json"))
	for _, file := range rt {
		var fx struct {
			Input json.RawMessage `json:"input"`
		}
		if data, err := os.ReadFile(file); err == nil && json.Unmarshal(data, &fx) == nil {
			add(fx.Input)
			nested(fx.Input)
		}
	}
	hostile, _ := filepath.Glob(filepath.Join("..", "testdata", "hostile", "*.json"))
	sort.Strings(hostile)
	for _, file := range hostile {
		if data, err := os.ReadFile(file); err == nil {
			add(data)
		}
	}
	for _, fr := range transcriptFrames(tb) {
		add(fr.Params)
		add(fr.Result)
		nested(fr.Params)
		nested(fr.Result)
		// Snapshots sit one level down (initialize/subscribe results).
		var res struct {
			Snapshot  json.RawMessage   `json:"snapshot"`
			Snapshots []json.RawMessage `json:"snapshots"`
		}
		if json.Unmarshal(fr.Result, &res) == nil {
			add(res.Snapshot)
			for _, s := range res.Snapshots {
				add(s)
			}
		}
	}
	// Shapes the fixtures lack: unknown discriminators, wrong types, nulls.
	for _, s := range []string{
		`null`, `{}`, `[]`, `{"type":null}`, `{"type":1}`, `{"type":"x/y","z":[1,{"a":null}]}`,
		`{"kind":"unknown","x":1}`, `{"status":"weird"}`, `{"type":"chat/delta","delta":"\u001b[2J"}`,
		`{"channel":"ahp-chat:/c","action":{"type":"nope"},"serverSeq":-1}`,
		`{"resource":"ahp-unknown:/x","state":{"a":1},"fromSeq":0}`,
		`{"resource":"ahp-root://","state":null,"fromSeq":0}`,
	} {
		addTo(-1, []byte(s))
	}
	return seeds
}

// topKeys lists the member names of a JSON object, sorted.
func topKeys(b []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return "!"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// walkObjects calls f for every object in v, v itself included.
func walkObjects(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(x)
		for _, e := range x {
			walkObjects(e, f)
		}
	case []any:
		for _, e := range x {
			walkObjects(e, f)
		}
	}
}

// knownVariant reports whether a decoded target holds something its type
// knows: a union's known variant (every object decodes, as its Unknown
// variant at worst), an envelope with an action, a snapshot of a resource.
// Seeding a target with documents of other types only replays its
// fallback path.
func knownVariant(v any) bool {
	switch x := v.(type) {
	case *ActionEnvelope:
		return x.Channel != "" && x.Action.Variant != nil
	case *Snapshot:
		return x.Resource != "" && x.State.Variant != nil
	}
	f := reflect.ValueOf(v).Elem().FieldByName("Variant")
	if !f.IsValid() || f.IsNil() {
		return false
	}
	return !strings.HasPrefix(f.Elem().Type().Name(), "Unknown")
}

// shapeDiscriminators are the members whose string values select a
// variant (or a state), so they are part of a document's shape.
var shapeDiscriminators = map[string]bool{"type": true, "kind": true, "status": true, "state": true, "reason": true, "confirmed": true, "resource": true, "channel": true}

// jsonShape describes the structure of a JSON document: object member
// names with the shape of their values, the distinct shapes of array
// elements, the kind of each scalar, and the values of discriminator
// members. Two documents of one shape exercise the same decoder paths.
// Invalid JSON is its own shape (its bytes).
func jsonShape(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return "!" + string(b)
	}
	var sb strings.Builder
	writeShape(&sb, "", v)
	return sb.String()
}

func writeShape(sb *strings.Builder, key string, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		sb.WriteByte('{')
		for _, k := range keys {
			sb.WriteString(strconv.Quote(k))
			sb.WriteByte(':')
			writeShape(sb, k, x[k])
			sb.WriteByte(',')
		}
		sb.WriteByte('}')
	case []any:
		elems := map[string]bool{}
		for _, e := range x {
			var eb strings.Builder
			writeShape(&eb, key, e)
			elems[eb.String()] = true
		}
		distinct := make([]string, 0, len(elems))
		for e := range elems {
			distinct = append(distinct, e)
		}
		sort.Strings(distinct)
		sb.WriteString("[" + strings.Join(distinct, "|") + "]")
	case string:
		if shapeDiscriminators[key] {
			// Channel and resource URIs matter by scheme only.
			if i := strings.Index(x, ":"); i >= 0 && (key == "resource" || key == "channel") {
				x = x[:i]
			}
			sb.WriteString(strconv.Quote(x))
		} else {
			sb.WriteByte('s')
		}
	case float64:
		sb.WriteByte('n')
	case bool:
		sb.WriteByte('b')
	default:
		sb.WriteByte('z')
	}
}

// transcriptFrame is one line of a testdata/transcripts/*.jsonl file.
type transcriptFrame struct {
	// Dir is "in" (client → host) or "out" (host → client), as demohost's
	// tap names them.
	Dir   string          `json:"dir"`
	Frame json.RawMessage `json:"frame"`

	// Decoded members of Frame, for seeding.
	Params json.RawMessage `json:"-"`
	Result json.RawMessage `json:"-"`
}

// transcriptFrames reads every recorded transcript under ../testdata.
func transcriptFrames(tb testing.TB) []transcriptFrame {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "transcripts", "*.jsonl"))
	sort.Strings(files)
	var out []transcriptFrame
	for _, file := range files {
		out = append(out, readTranscript(tb, file)...)
	}
	return out
}

func readTranscript(tb testing.TB, file string) []transcriptFrame {
	tb.Helper()
	fh, err := os.Open(file)
	if err != nil {
		tb.Fatalf("open transcript: %v", err)
	}
	defer fh.Close()
	var out []transcriptFrame
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var fr transcriptFrame
		if err := json.Unmarshal(line, &fr); err != nil {
			tb.Fatalf("%s:%d: not a transcript line: %v", file, n, err)
		}
		if fr.Dir == "" {
			continue // metadata lines (e.g. the recorded final state) carry no dir
		}
		var m struct {
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(fr.Frame, &m); err != nil {
			tb.Fatalf("%s:%d: frame is not a JSON object: %v", file, n, err)
		}
		fr.Params, fr.Result = m.Params, m.Result
		out = append(out, fr)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("read %s: %v", file, err)
	}
	return out
}
