// Package schemacheck validates JSON values and JSON-RPC frames against the
// AHP JSON Schemas: 0.6.0 in ../shared/ahp/schema (Load) and 1.0.0 in
// ../shared/ahp-1.0/schema (Load10; ForWire picks by negotiated wire). It
// is a test helper: the wire types, reducers, demo host and recorded
// transcripts use it to prove that what ahptui sends and accepts is what
// the spec of the negotiated version describes.
//
// The 1.0.0 release's one schema file lacks the notification params; the
// package supplies them by hand (notifications10.schema.json, from the
// shapes ../shared/ahp-1.0/README.md gives), so ValidateMessage checks 1.0
// notifications too.
//
// The published schemas carry three known defects (see the README next to
// them); Load patches them in memory and never edits the files. Values are
// validated with null object members removed, because the fixtures (and
// Go encoders) spell absent optional fields as null.
//
// It may import protocol/jsonrpc (to read frames) and nothing else of
// ahptui; production code must not import it.
package schemacheck

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// schemaFiles lists the schema files in lookup priority: a $def that appears
// in several files (they are self-contained, so shared types are copied
// into each) is compiled from the first file that has it.
var schemaFiles = []string{
	"commands.schema.json",
	"notifications.schema.json",
	"actions.schema.json",
	"state.schema.json",
	"errors.schema.json",
}

// notificationMethods maps the ProtocolNotification params types to their
// wire method names, which the schemas do not carry (they come from the
// spec text). "action" carries an ActionEnvelope.
var notificationMethods = map[string]string{
	"auth/required":              "AuthRequiredParams",
	"root/sessionAdded":          "SessionAddedParams",
	"root/sessionRemoved":        "SessionRemovedParams",
	"root/sessionSummaryChanged": "SessionSummaryChangedParams",
	"root/progress":              "ProgressParams",
	"otlp/exportLogs":            "OtlpExportLogsParams",
	"otlp/exportTraces":          "OtlpExportTracesParams",
	"otlp/exportMetrics":         "OtlpExportMetricsParams",
	"action":                     "ActionEnvelope",
}

// Validator validates values against named AHP $defs. It is safe for
// concurrent use.
type Validator struct {
	dir      string
	defFile  map[string]string // $def name → schema URL that holds it
	params   map[string]string // method → params $def
	results  map[string]string // method → result $def
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

// loadShared is LoadDir of $env, or of ../shared/<name>/schema beside the
// repository root, loaded once.
func loadShared(env, name string) func() (*Validator, error) {
	return sync.OnceValues(func() (*Validator, error) {
		dir, err := sharedDir(env, name)
		if err != nil {
			return nil, err
		}
		return LoadDir(dir)
	})
}

var (
	load06 = loadShared("AHP_SCHEMA_DIR", "ahp")
	load07 = loadShared("AHP07_SCHEMA_DIR", "ahp-0.7.0")
	load10 = loadShared("AHP10_SCHEMA_DIR", "ahp-1.0")
)

// Load returns the shared Validator for the AHP 0.6.0 schemas, in the
// directory named by AHP_SCHEMA_DIR, or ../shared/ahp/schema relative to
// the repository root (the directory holding go.mod). The result is cached.
func Load() (*Validator, error) { return load06() }

// Load07 returns the shared Validator for the AHP 0.7.0 schemas, in the
// directory named by AHP07_SCHEMA_DIR or ../shared/ahp-0.7.0/schema
// relative to the repository root. The result is cached.
func Load07() (*Validator, error) { return load07() }

// Load10 returns the shared Validator for the AHP 1.0.0 schema, in the
// directory named by AHP10_SCHEMA_DIR or ../shared/ahp-1.0/schema relative
// to the repository root. The result is cached.
func Load10() (*Validator, error) { return load10() }

// ForWire returns the Validator of a negotiated wire: protocol.Wire06
// ("0.6") gives the 0.6.0 schemas, Wire07 ("0.7") the 0.7.0 ones,
// protocol.Wire10 ("1.0": 1.x, 0.10.x, 0.9.x) the 1.0.0 one. There is no
// 0.8.0 schema here (../shared holds none), so "0.8" is an error. It takes the wire by its String form because
// package protocol's own tests import schemacheck, so schemacheck cannot
// import protocol.
func ForWire(w fmt.Stringer) (*Validator, error) {
	switch w.String() {
	case "0.6":
		return Load()
	case "0.7":
		return Load07()
	case "1.0":
		return Load10()
	}
	return nil, fmt.Errorf("schemacheck: no schema for wire %q", w)
}

// MustLoad is Load for tests: it stops the test if the schemas are missing.
func MustLoad(t testing.TB) *Validator { t.Helper(); return must(t, Load) }

// MustLoad10 is Load10 for tests.
func MustLoad10(t testing.TB) *Validator { t.Helper(); return must(t, Load10) }

// MustForWire is ForWire for tests.
func MustForWire(t testing.TB, w fmt.Stringer) *Validator {
	t.Helper()
	return must(t, func() (*Validator, error) { return ForWire(w) })
}

func must(t testing.TB, load func() (*Validator, error)) *Validator {
	t.Helper()
	v, err := load()
	if err != nil {
		t.Fatalf("schemacheck: %v", err)
	}
	return v
}

func schemaDir() (string, error) { return sharedDir("AHP_SCHEMA_DIR", "ahp") }

// sharedDir is $env, or ../shared/<name>/schema beside the repository
// root (the directory holding go.mod).
func sharedDir(env, name string) (string, error) {
	if d := os.Getenv(env); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("cannot find the working directory: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", name, "schema"), nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no go.mod above %s; set %s to the AHP schema directory", wd, env)
		}
	}
}

// LoadDir builds an uncached Validator from the schema files in dir.
func LoadDir(dir string) (*Validator, error) {
	v := &Validator{
		dir:      dir,
		defFile:  map[string]string{},
		params:   map[string]string{},
		results:  map[string]string{},
		compiler: jsonschema.NewCompiler(),
		compiled: map[string]*jsonschema.Schema{},
	}
	var commandDefs, notificationDefs map[string]any
	files := schemaFiles
	oneFile := onlyErrorsFile(dir)
	if oneFile {
		// The 1.0.0 release publishes every $def in errors.schema.json,
		// commands included; notification params are not in it.
		files = []string{"errors.schema.json"}
	}
	for _, name := range files {
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("cannot read the AHP schemas (set AHP_SCHEMA_DIR, or AHP10_SCHEMA_DIR for 1.0, to override the location): %w", err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s is not valid JSON: %w", path, err)
		}
		root, ok := doc.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: not a JSON object", path)
		}
		defs, _ := root["$defs"].(map[string]any)
		if defs == nil {
			return nil, fmt.Errorf("%s: no $defs", path)
		}
		patch(defs)
		// Register under the file's own $id so internal "#/$defs/X" refs
		// resolve against the right document; fall back to a file URL.
		url, _ := root["$id"].(string)
		if url == "" {
			url = "file://" + filepath.ToSlash(path)
		}
		if err := v.compiler.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for def := range defs {
			if _, seen := v.defFile[def]; !seen {
				v.defFile[def] = url
			}
		}
		switch {
		case oneFile:
			commandDefs = defs
			if notificationDefs, err = v.addNotifications10(url, defs); err != nil {
				return nil, err
			}
		case name == "commands.schema.json":
			commandDefs = defs
		case name == "notifications.schema.json":
			notificationDefs = defs
		}
	}
	// Commands are named by their types: FooBarParams is method fooBar, and
	// FooBarResult its result (BaseParams/PaginatedParams are mixins).
	for def := range commandDefs {
		for suffix, table := range map[string]map[string]string{"Params": v.params, "Result": v.results} {
			base, ok := strings.CutSuffix(def, suffix)
			if !ok || base == "" || base == "Base" || base == "Paginated" {
				continue
			}
			table[strings.ToLower(base[:1])+base[1:]] = def
		}
	}
	for method, def := range notificationMethods {
		if _, ok := notificationDefs[def]; !ok && def != "ActionEnvelope" {
			return nil, fmt.Errorf("notification %q: %s is missing from notifications.schema.json (schema version drift?)", method, def)
		}
		v.params[method] = def
	}
	return v, nil
}

//go:embed notifications10.schema.json
var notifications10 string

// notifications10URL names the hand-written 1.0 notification params.
const notifications10URL = "https://ahptui.invalid/schemacheck/notifications10.schema.json"

// addNotifications10 registers the hand-written 1.0 notification params
// beside the 1.0 schema file registered at errorsURL (whose $defs are
// errorDefs) and returns their $defs.
func (v *Validator) addNotifications10(errorsURL string, errorDefs map[string]any) (map[string]any, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(strings.ReplaceAll(notifications10, "{{errors}}", errorsURL)))
	if err != nil {
		return nil, fmt.Errorf("notifications10.schema.json: %w", err)
	}
	defs := doc.(map[string]any)["$defs"].(map[string]any)
	summary, ok := errorDefs["SessionSummary"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the 1.0 schema has no SessionSummary (schema version drift?)")
	}
	// root/sessionSummaryChanged carries the mutable summary fields, all
	// optional: SessionSummary with nothing required. Its $refs point into
	// the errors file, so they are made absolute.
	props := map[string]any{}
	for name, p := range summary["properties"].(map[string]any) {
		props[name] = absoluteRefs(p, errorsURL)
	}
	defs["PartialSessionSummary"] = map[string]any{"type": "object", "properties": props}
	if err := v.compiler.AddResource(notifications10URL, doc); err != nil {
		return nil, fmt.Errorf("notifications10.schema.json: %w", err)
	}
	for def := range defs {
		if _, seen := v.defFile[def]; !seen {
			v.defFile[def] = notifications10URL
		}
	}
	return defs, nil
}

// absoluteRefs copies a schema fragment with its local "#/..." $refs
// pointing into base.
func absoluteRefs(v any, base string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if s, ok := e.(string); ok && k == "$ref" && strings.HasPrefix(s, "#") {
				out[k] = base + s
				continue
			}
			out[k] = absoluteRefs(e, base)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = absoluteRefs(e, base)
		}
		return out
	}
	return v
}

// onlyErrorsFile reports the 1.0 layout: errors.schema.json and no
// commands.schema.json beside it.
func onlyErrorsFile(dir string) bool {
	_, errCommands := os.Stat(filepath.Join(dir, "commands.schema.json"))
	_, errErrors := os.Stat(filepath.Join(dir, "errors.schema.json"))
	return errors.Is(errCommands, os.ErrNotExist) && errErrors == nil
}

// patch applies the known 0.6.0 schema defects' fixes (README "Known
// defects", and one more instance of its second kind) to one file's
// $defs, in memory.
func patch(defs map[string]any) {
	// 1. A oneOf branch {"$ref": "#/$defs/"} names nothing; drop it.
	if sa, ok := defs["StateAction"].(map[string]any); ok {
		if branches, ok := sa["oneOf"].([]any); ok {
			kept := branches[:0:0]
			for _, b := range branches {
				if m, ok := b.(map[string]any); ok && m["$ref"] == "#/$defs/" {
					continue
				}
				kept = append(kept, b)
			}
			sa["oneOf"] = kept
		}
	}
	// 2. Optional (T | undefined) fields published as required.
	unrequire(defs, "ActionEnvelope", "origin")
	unrequire(defs, "Turn", "usage")
	unrequire(defs, "ActiveTurn", "usage")
	// The same slip on four actions whose own descriptions say "undefined
	// to clear" (the README lists only the three above): a host clearing
	// an activity, a changeset catalogue, _meta or an operation list sends
	// the action without the member, and fixture 134 clears with null.
	// 1.0 publishes them optional.
	unrequire(defs, "SessionActivityChangedAction", "activity")
	unrequire(defs, "SessionChangesetsChangedAction", "changesets")
	unrequire(defs, "SessionMetaChangedAction", "_meta")
	unrequire(defs, "ChangesetOperationsChangedAction", "operations")
	// 3. SessionStatus is a bitset, not an enum.
	if ss, ok := defs["SessionStatus"].(map[string]any); ok {
		defs["SessionStatus"] = map[string]any{
			"description": ss["description"],
			"type":        "integer",
			"minimum":     json.Number("0"),
		}
	}
}

func unrequire(defs map[string]any, def, field string) {
	d, ok := defs[def].(map[string]any)
	if !ok {
		return
	}
	req, ok := d["required"].([]any)
	if !ok {
		return
	}
	kept := make([]any, 0, len(req))
	for _, r := range req {
		if r != field {
			kept = append(kept, r)
		}
	}
	d["required"] = kept
}

// Defs lists every $def name the Validator knows, sorted.
func (v *Validator) Defs() []string {
	out := make([]string, 0, len(v.defFile))
	for d := range v.defFile {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// HasDef reports whether def names a $def in the schemas.
func (v *Validator) HasDef(def string) bool {
	_, ok := v.defFile[def]
	return ok
}

// ParamsDef returns the params $def of a request or notification method.
func (v *Validator) ParamsDef(method string) (string, bool) {
	d, ok := v.params[method]
	return d, ok
}

// ResultDef returns the result $def of a command, if the schema has one.
func (v *Validator) ResultDef(method string) (string, bool) {
	d, ok := v.results[method]
	return d, ok
}

func (v *Validator) schema(def string) (*jsonschema.Schema, error) {
	url, ok := v.defFile[def]
	if !ok {
		return nil, fmt.Errorf("%w %q in the AHP schemas", ErrUnknownDef, def)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.compiled[def]; ok {
		return s, nil
	}
	s, err := v.compiler.Compile(url + "#/$defs/" + def)
	if err != nil {
		return nil, fmt.Errorf("schemacheck: compiling %s: %w", def, err)
	}
	v.compiled[def] = s
	return s, nil
}

// Validate checks value against the $def named def (e.g. "StateAction",
// "InitializeParams", "ActionEnvelope"). value may be JSON bytes
// ([]byte, json.RawMessage) or any Go value encoding/json can marshal.
// Null object members are removed first.
func (v *Validator) Validate(def string, value any) error {
	s, err := v.schema(def)
	if err != nil {
		return err
	}
	inst, err := toInstance(value)
	if err != nil {
		return fmt.Errorf("schemacheck: %s: %w", def, err)
	}
	if err := s.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			pruneDiscriminated(ve)
		}
		return fmt.Errorf("schemacheck: value is not a valid %s: %w", def, err)
	}
	return nil
}

// pruneDiscriminated drops, from every oneOf/anyOf failure, the branches
// that failed only because their "type"/"kind" discriminator differs, as long
// as some branch remains. Otherwise a bad chat/delta lists all 80-odd action
// variants and the one real complaint is lost.
func pruneDiscriminated(e *jsonschema.ValidationError) {
	if len(e.Causes) > 1 {
		kept := make([]*jsonschema.ValidationError, 0, len(e.Causes))
		for _, c := range e.Causes {
			if !discriminatorMismatch(c) {
				kept = append(kept, c)
			}
		}
		if len(kept) > 0 {
			e.Causes = kept
		}
	}
	for _, c := range e.Causes {
		pruneDiscriminated(c)
	}
}

func discriminatorMismatch(e *jsonschema.ValidationError) bool {
	isDisc := func(e *jsonschema.ValidationError) bool {
		if _, ok := e.ErrorKind.(*kind.Const); !ok {
			return false
		}
		loc := e.InstanceLocation
		return len(loc) > 0 && (loc[len(loc)-1] == "type" || loc[len(loc)-1] == "kind")
	}
	if isDisc(e) {
		return true
	}
	for _, c := range e.Causes {
		if isDisc(c) {
			return true
		}
	}
	return false
}

func toInstance(value any) (any, error) {
	var raw []byte
	switch x := value.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	default:
		b, err := json.Marshal(value)
		if err != nil {
			return nil, fmt.Errorf("cannot encode the value as JSON: %w", err)
		}
		raw = b
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	return stripNulls(inst), nil
}

// stripNulls removes null members from objects at every depth; array
// elements stay (a null element is a real value).
func stripNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = stripNulls(e)
		}
	case []any:
		for i, e := range x {
			x[i] = stripNulls(e)
		}
	}
	return v
}

// ValidateMessage validates one JSON-RPC frame: it must be a well-formed
// JSON-RPC 2.0 message; a request's or notification's params must match the
// method's params $def (absent params count as {}); a response only needs
// to be well-formed, since its method is not on the wire (use
// ValidateResult when the method is known).
func (v *Validator) ValidateMessage(frame []byte) error {
	msg, err := jsonrpc.Decode(frame)
	if err != nil {
		return fmt.Errorf("schemacheck: %w", err)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil
	}
	def, ok := v.params[req.Method]
	if !ok {
		return fmt.Errorf("schemacheck: unknown AHP method %q (no params type in the schemas)", req.Method)
	}
	params := req.Params
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	if err := v.Validate(def, params); err != nil {
		return fmt.Errorf("schemacheck: %s params: %w", req.Method, err)
	}
	return nil
}

// ValidateResult validates a command's result against its XxxResult $def.
// Methods whose result the schemas do not describe (e.g. ping) accept any
// result.
func (v *Validator) ValidateResult(method string, result any) error {
	if _, known := v.params[method]; !known {
		return fmt.Errorf("schemacheck: unknown AHP method %q", method)
	}
	if byType, ok := resultUnions[method]; ok {
		return v.validateResultUnion(method, byType, result)
	}
	def, ok := v.results[method]
	if !ok {
		return nil
	}
	return v.Validate(def, result)
}

// resultUnions are the results published as one $def per variant, with
// no union $def: the result's "type" picks the variant (both versions).
var resultUnions = map[string]map[string]string{
	"reconnect": {"replay": "ReconnectReplayResult", "snapshot": "ReconnectSnapshotResult"},
}

func (v *Validator) validateResultUnion(method string, byType map[string]string, result any) error {
	inst, err := toInstance(result)
	if err != nil {
		return fmt.Errorf("schemacheck: %s result: %w", method, err)
	}
	obj, _ := inst.(map[string]any)
	typ, _ := obj["type"].(string)
	def, ok := byType[typ]
	if !ok {
		return fmt.Errorf("schemacheck: %s result of type %q: not one the schema has", method, typ)
	}
	return v.Validate(def, result)
}

// ValidateResponse validates a response frame to a request of the given
// method: it must be well-formed, and a successful result must match the
// method's result $def. Error responses are accepted as they are.
func (v *Validator) ValidateResponse(method string, frame []byte) error {
	msg, err := jsonrpc.Decode(frame)
	if err != nil {
		return fmt.Errorf("schemacheck: %w", err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return fmt.Errorf("schemacheck: want a response to %s, got a request", method)
	}
	if resp.Error != nil {
		return nil
	}
	if err := v.ValidateResult(method, resp.Result); err != nil {
		return fmt.Errorf("schemacheck: %s result: %w", method, err)
	}
	return nil
}

// ErrUnknownDef is returned (wrapped) for a def name the schemas lack.
var ErrUnknownDef = errors.New("schemacheck: unknown $def")
