package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// schema is the subset of JSON Schema 2020-12 the AHP schemas use. Property
// order is kept so generated structs read in the spec's own order.
type schema struct {
	Description string
	Type        string
	Ref         string
	Const       json.RawMessage
	Enum        []json.RawMessage
	OneOf       []*schema
	Props       []*prop
	Required    []string
	Items       *schema
	Addl        *schema // additionalProperties as a schema; nil when absent or false
	Any         bool    // the empty schema {} (optionally with a description)
}

type prop struct {
	Name   string
	Schema *schema
}

func (s *schema) prop(name string) *schema {
	for _, p := range s.Props {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

func (s *schema) isRequired(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

func (s *schema) isObject() bool { return s.Type == "object" || len(s.Props) > 0 }

// orderedObject decodes a JSON object keeping key order.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("expected object, got %v", tok)
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := vals[k]; !dup {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	return keys, vals, nil
}

func parseSchema(raw json.RawMessage) (*schema, error) {
	_, m, err := orderedObject(raw)
	if err != nil {
		return nil, err
	}
	s := &schema{}
	if d, ok := m["description"]; ok {
		if err := json.Unmarshal(d, &s.Description); err != nil {
			return nil, err
		}
	}
	if t, ok := m["type"]; ok {
		if err := json.Unmarshal(t, &s.Type); err != nil {
			return nil, fmt.Errorf("type %s: only single types are supported: %w", t, err)
		}
	}
	if r, ok := m["$ref"]; ok {
		if err := json.Unmarshal(r, &s.Ref); err != nil {
			return nil, err
		}
	}
	if c, ok := m["const"]; ok {
		s.Const = compact(c)
	}
	if e, ok := m["enum"]; ok {
		if err := json.Unmarshal(e, &s.Enum); err != nil {
			return nil, err
		}
		for i := range s.Enum {
			s.Enum[i] = compact(s.Enum[i])
		}
	}
	if o, ok := m["oneOf"]; ok {
		var list []json.RawMessage
		if err := json.Unmarshal(o, &list); err != nil {
			return nil, err
		}
		for _, b := range list {
			bs, err := parseSchema(b)
			if err != nil {
				return nil, err
			}
			s.OneOf = append(s.OneOf, bs)
		}
	}
	if p, ok := m["properties"]; ok {
		keys, vals, err := orderedObject(p)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			ps, err := parseSchema(vals[k])
			if err != nil {
				return nil, fmt.Errorf("property %s: %w", k, err)
			}
			s.Props = append(s.Props, &prop{Name: k, Schema: ps})
		}
	}
	if r, ok := m["required"]; ok {
		if err := json.Unmarshal(r, &s.Required); err != nil {
			return nil, err
		}
	}
	if it, ok := m["items"]; ok {
		if s.Items, err = parseSchema(it); err != nil {
			return nil, err
		}
	}
	if a, ok := m["additionalProperties"]; ok && string(bytes.TrimSpace(a)) != "false" {
		if string(bytes.TrimSpace(a)) == "true" {
			s.Addl = &schema{Any: true}
		} else if s.Addl, err = parseSchema(a); err != nil {
			return nil, err
		}
	}
	if s.Type == "" && s.Ref == "" && s.Const == nil && s.Enum == nil && s.OneOf == nil && s.Props == nil && s.Items == nil {
		s.Any = true
	}
	return s, nil
}

func compact(b json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

// schemaFiles is the precedence order: a $def that appears in several files
// is taken from the first file that has it.
var schemaFiles = []string{"state", "actions", "commands", "notifications", "errors"}

type defSet struct {
	names []string // first-appearance order, which keeps related types together
	defs  map[string]*schema
	raw   map[string]json.RawMessage
	from  map[string]string
}

func loadDefs(dir string) (*defSet, error) {
	ds := &defSet{defs: map[string]*schema{}, raw: map[string]json.RawMessage{}, from: map[string]string{}}
	for _, f := range schemaFiles {
		path := filepath.Join(dir, f+".schema.json")
		data, err := os.ReadFile(path)
		if err != nil && errors.Is(err, os.ErrNotExist) && f != "errors" && len(ds.names) == 0 && onlyErrorsFile(dir) {
			// The 1.0 release publishes every $def in errors.schema.json.
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read schema (pass -schemas to point at the AHP schema folder): %w", err)
		}
		_, top, err := orderedObject(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		keys, vals, err := orderedObject(top["$defs"])
		if err != nil {
			return nil, fmt.Errorf("%s $defs: %w", path, err)
		}
		for _, k := range keys {
			if prev, ok := ds.raw[k]; ok {
				if !sameIgnoringDescriptions(prev, vals[k]) {
					fmt.Fprintf(os.Stderr, "ahpgen: note: $defs/%s differs between %s and %s; using %s\n", k, ds.from[k], f, ds.from[k])
				}
				continue
			}
			s, err := parseSchema(vals[k])
			if err != nil {
				return nil, fmt.Errorf("%s $defs/%s: %w", path, k, err)
			}
			ds.names = append(ds.names, k)
			ds.defs[k] = s
			ds.raw[k] = vals[k]
			ds.from[k] = f
		}
	}
	return ds, nil
}

// onlyErrorsFile reports whether dir holds errors.schema.json and no
// state.schema.json: the 1.0 layout, where one file carries every $def.
func onlyErrorsFile(dir string) bool {
	_, errState := os.Stat(filepath.Join(dir, "state.schema.json"))
	_, errErrors := os.Stat(filepath.Join(dir, "errors.schema.json"))
	return errors.Is(errState, os.ErrNotExist) && errErrors == nil
}

func sameIgnoringDescriptions(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	strip(x)
	strip(y)
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func strip(v any) {
	switch t := v.(type) {
	case map[string]any:
		delete(t, "description")
		// The empty $ref in actions' StateAction (README defect 1) is the
		// only difference between the files; patch() drops it anyway.
		if one, ok := t["oneOf"].([]any); ok {
			kept := one[:0]
			for _, b := range one {
				if m, ok := b.(map[string]any); ok && m["$ref"] == "#/$defs/" {
					continue
				}
				kept = append(kept, b)
			}
			t["oneOf"] = kept
		}
		for _, c := range t {
			strip(c)
		}
	case []any:
		for _, c := range t {
			strip(c)
		}
	}
}
