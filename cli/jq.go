package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/itchyny/gojq"
	"github.com/spf13/pflag"

	"github.com/ahptui/ahptui/views"
)

// --json FIELDS and --jq EXPR, gh's shape: every JSON a command writes
// (emit's documents and watch's NDJSON lines alike) goes through one
// filter on its way out — the fields first, then the expression.

// jsonAllFields is what --json alone sets: every field.
const jsonAllFields = "true"

// jsonFlag is --json: alone, the whole JSON; --json=FIELDS, only those
// top-level fields of the object (or of each object of an array).
type jsonFlag struct{ a *app }

func (f jsonFlag) String() string {
	if f.a == nil || !f.a.json {
		return "false"
	}
	if len(f.a.jsonFields) == 0 {
		return jsonAllFields
	}
	return strings.Join(f.a.jsonFields, ",")
}

func (f jsonFlag) Type() string { return "fields" }

var fieldRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (f jsonFlag) Set(v string) error {
	switch v {
	case jsonAllFields, "":
		f.a.json, f.a.jsonFields = true, nil
		return nil
	case "false":
		f.a.json, f.a.jsonFields = false, nil
		return nil
	}
	var fields []string
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if !fieldRE.MatchString(name) {
			return fmt.Errorf("%q is not a field name: give --json alone for every field, or --json=FIELD,FIELD", name)
		}
		if !slices.Contains(fields, name) {
			fields = append(fields, name)
		}
	}
	f.a.json, f.a.jsonFields = true, fields
	return nil
}

// jsonFlags registers --json and --jq on root.
func jsonFlags(pf *pflag.FlagSet, a *app) {
	pf.Var(jsonFlag{a}, "json", "print JSON (see README, Scripting) instead of text; --json=`FIELDS` (a comma list) keeps only those top-level fields")
	pf.Lookup("json").NoOptDefVal = jsonAllFields
	pf.StringVar(&a.jq, "jq", "", "print what the jq `EXPR` makes of the JSON (implies --json; strings print raw, one result a line)")
}

// jsonFilter is the run's --json FIELDS and --jq EXPR.
type jsonFilter struct {
	fields []string
	code   *gojq.Code
	// typ is the Go type of the value emit writes: it names every field
	// the command has, so a misspelt one is an error rather than nothing.
	// Unset (watch's lines) no field is refused.
	typ reflect.Type
	// tty: stdout is a terminal, so a raw string result is cleaned of
	// control characters and escape sequences, as text output is.
	tty bool
}

// filteredOut is stdout when the run has a filter: text passes through,
// jsonOut sees the filter and applies it to each JSON text.
type filteredOut struct {
	w io.Writer
	f *jsonFilter
}

func (o *filteredOut) Write(p []byte) (int, error) { return o.w.Write(p) }

// setupJSONFilter compiles --jq (a usage error when it does not parse)
// and, when there is anything to filter, puts the filter in front of
// stdout. --jq implies --json.
func (a *app) setupJSONFilter() error {
	if a.jq == "" && len(a.jsonFields) == 0 {
		return nil
	}
	f := &jsonFilter{fields: a.jsonFields, tty: a.StdoutTTY}
	if a.jq != "" {
		a.json = true
		if err := compileInto(f, a.jq); err != nil {
			return usagef("--jq %q: %s", a.jq, jqMessage(err))
		}
	}
	a.filter = f
	a.Stdout = &filteredOut{w: a.Stdout, f: f}
	return nil
}

// compileInto compiles the jq expression expr into f.
func compileInto(f *jsonFilter, expr string) error {
	q, err := gojq.Parse(expr)
	if err != nil {
		return err
	}
	f.code, err = gojq.Compile(q)
	return err
}

// jqMessage is a gojq error as one line, its parse position included.
func jqMessage(err error) string {
	var pe interface {
		error
		Token() (string, int)
	}
	if errors.As(err, &pe) {
		tok, off := pe.Token()
		return fmt.Sprintf("%s (at offset %d, near %q)", views.SanitizeLine(pe.Error()), off, tok)
	}
	return views.SanitizeLine(err.Error())
}

// apply is the JSON text p (one document, as json.Encoder writes it)
// through the filter: the selected fields, then the expression's results,
// each on its own line — a string raw, anything else as compact JSON.
func (f *jsonFilter) apply(p []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("filter the JSON: %w", err)
	}
	if len(f.fields) > 0 {
		if err := f.checkFields(); err != nil {
			return nil, err
		}
		v = selectFields(v, f.fields)
	}
	var out bytes.Buffer
	if f.code == nil {
		indent := bytes.Count(bytes.TrimSpace(p), []byte("\n")) > 0
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if indent {
			enc.SetIndent("", "  ")
		}
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	}
	iter := f.code.Run(v)
	for {
		r, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := r.(error); ok {
			var he *gojq.HaltError
			if errors.As(err, &he) && he.Value() == nil {
				break // halt: stop, quietly
			}
			return nil, usagef("--jq: %s", jqMessage(err))
		}
		if s, ok := r.(string); ok {
			if f.tty {
				s = views.Sanitize(s)
			}
			out.WriteString(s)
			out.WriteByte('\n')
			continue
		}
		b, err := gojq.Marshal(r)
		if err != nil {
			return nil, usagef("--jq: %s", jqMessage(err))
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

// selectFields keeps fields of an object, or of each object of an array.
func selectFields(v any, fields []string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(fields))
		for _, name := range fields {
			if val, ok := x[name]; ok {
				out[name] = val
			}
		}
		return out
	case []any:
		for i := range x {
			x[i] = selectFields(x[i], fields)
		}
		return x
	}
	return v
}

// checkFields refuses a field the command's JSON does not have, naming
// the ones it has (known from the Go type emit writes).
func (f *jsonFilter) checkFields() error {
	known := jsonFieldsOf(f.typ)
	if known == nil {
		return nil
	}
	for _, name := range f.fields {
		if !slices.Contains(known, name) {
			return usagef("--json: this command's JSON has no field %q; it has %s", name, strings.Join(known, ", "))
		}
	}
	return nil
}

// jsonFieldsOf is the JSON member names of the struct t is (or the
// element of, for a slice), in order; nil when t is not a struct.
func jsonFieldsOf(t reflect.Type) []string {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case name == "-":
			continue
		case sf.Anonymous && name == "":
			names = append(names, jsonFieldsOf(sf.Type)...)
			continue
		case !sf.IsExported():
			continue
		case name == "":
			name = sf.Name
		}
		names = append(names, name)
	}
	return names
}
