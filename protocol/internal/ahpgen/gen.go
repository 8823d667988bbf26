package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

type gen struct {
	ds      *defSet
	buf     bytes.Buffer
	unions  map[string]*union   // by union name
	markers map[string][]string // variant type → unions it belongs to
	inline  []inlineType
	emitted map[string]bool
	shapes  map[string]string // shapeKey → first inline type name with that shape

	plainDecoders map[string]bool // variants that got a decodePlain<Name> fast path
	title         string          // what the schemas are, for the header line
	pkg           string          // the package generated into
}

type inlineType struct {
	name    string
	s       *schema
	aliasOf string
}

// shapeKey identifies a schema by structure, ignoring descriptions.
func shapeKey(s *schema) string {
	var b strings.Builder
	var walk func(s *schema)
	walk = func(s *schema) {
		if s == nil {
			b.WriteString("nil")
			return
		}
		fmt.Fprintf(&b, "{t=%s r=%s c=%s a=%v req=%v e=%s", s.Type, s.Ref, s.Const, s.Any, s.Required, bytes.Join(asBytes(s.Enum), []byte(",")))
		for _, p := range s.Props {
			fmt.Fprintf(&b, " %s:", p.Name)
			walk(p.Schema)
		}
		for _, o := range s.OneOf {
			b.WriteString(" |")
			walk(o)
		}
		b.WriteString(" items:")
		walk(s.Items)
		b.WriteString(" addl:")
		walk(s.Addl)
		b.WriteString("}")
	}
	walk(s)
	return b.String()
}

func asBytes(in []json.RawMessage) [][]byte {
	out := make([][]byte, len(in))
	for i, r := range in {
		out[i] = r
	}
	return out
}

type union struct {
	name      string
	disc      string // JSON name of the discriminator property
	variants  []*variant
	peekProps []string // tie-breaker properties, for variants sharing a discriminator value
}

type variant struct {
	name   string
	values []json.RawMessage // discriminator literals; the first is the default
	ties   [][2]string       // (property, JSON literal) that pick this variant among those sharing a value
}

func newGen(ds *defSet) *gen {
	return &gen{ds: ds, unions: map[string]*union{}, markers: map[string][]string{}, emitted: map[string]bool{}, shapes: map[string]string{}, plainDecoders: map[string]bool{}}
}

func (g *gen) p(format string, args ...any) { fmt.Fprintf(&g.buf, format, args...) }

func refName(ref string) string { return strings.TrimPrefix(ref, "#/$defs/") }

// constValues returns the literals a property is pinned to: `const`, a
// string enum, or a oneOf of consts. nil when the property is free.
func constValues(s *schema) []json.RawMessage {
	if s == nil {
		return nil
	}
	if s.Const != nil {
		return []json.RawMessage{s.Const}
	}
	if len(s.Enum) > 0 && s.Type != "number" && s.Type != "integer" {
		return s.Enum
	}
	if len(s.OneOf) > 0 {
		var out []json.RawMessage
		for _, b := range s.OneOf {
			if b.Const == nil {
				return nil
			}
			out = append(out, b.Const)
		}
		return out
	}
	return nil
}

func literalText(v json.RawMessage) string {
	var s string
	if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// isConstUnion reports whether a oneOf is just a list of literals (an enum).
func isConstUnion(s *schema) bool {
	if len(s.OneOf) == 0 {
		return false
	}
	for _, b := range s.OneOf {
		if b.Const == nil {
			return false
		}
	}
	return true
}

// flatten expands nested unions so every variant is a concrete object.
func (g *gen) flatten(s *schema) ([]string, bool) {
	var out []string
	for _, b := range s.OneOf {
		if b.Ref == "" {
			return nil, false
		}
		n := refName(b.Ref)
		t, ok := g.ds.defs[n]
		if !ok {
			return nil, false
		}
		if len(t.OneOf) > 0 {
			sub, ok := g.flatten(t)
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
			continue
		}
		if !t.isObject() {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// analyzeUnion finds the discriminator: the pinned property present in every
// variant that tells the most variants apart.
func (g *gen) analyzeUnion(name string, s *schema) *union {
	names, ok := g.flatten(s)
	if !ok || len(names) == 0 {
		return nil
	}
	first := g.ds.defs[names[0]]
	best, bestDistinct := "", -1
	for _, cand := range first.Props {
		all := true
		counts := map[string]int{}
		for _, n := range names {
			vs := constValues(g.ds.defs[n].prop(cand.Name))
			if vs == nil {
				all = false
				break
			}
			for _, v := range vs {
				counts[string(v)]++
			}
		}
		if !all {
			continue
		}
		distinct := 0
		for _, n := range names {
			uniq := true
			for _, v := range constValues(g.ds.defs[n].prop(cand.Name)) {
				if counts[string(v)] > 1 {
					uniq = false
				}
			}
			if uniq {
				distinct++
			}
		}
		if distinct > bestDistinct {
			best, bestDistinct = cand.Name, distinct
		}
	}
	if best == "" {
		return nil
	}
	u := &union{name: name, disc: best}
	counts := map[string]int{}
	for _, n := range names {
		for _, v := range constValues(g.ds.defs[n].prop(best)) {
			counts[string(v)]++
		}
	}
	peek := map[string]bool{}
	for _, n := range names {
		d := g.ds.defs[n]
		v := &variant{name: n, values: constValues(d.prop(best))}
		shared := false
		for _, val := range v.values {
			if counts[string(val)] > 1 {
				shared = true
			}
		}
		if shared {
			for _, p := range d.Props {
				if p.Name == best {
					continue
				}
				if cv := constValues(p.Schema); len(cv) == 1 {
					v.ties = append(v.ties, [2]string{p.Name, string(cv[0])})
					if !peek[p.Name] {
						peek[p.Name] = true
						u.peekProps = append(u.peekProps, p.Name)
					}
				}
			}
		}
		u.variants = append(u.variants, v)
	}
	return u
}

// goFieldName: JSON name with the first letter of each word upper-cased;
// leading underscores dropped because Go would not export the field
// otherwise, and snake_case words joined (`resource_name` → ResourceName,
// then Go initialisms from goNames) so OAuth metadata reads like the rest.
func goFieldName(json string) string {
	n := strings.TrimLeft(json, "_")
	var b strings.Builder
	up := true
	for _, r := range n {
		if r == '_' {
			up = true
			continue
		}
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			r = '_'
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if out == "" || !unicode.IsLetter([]rune(out)[0]) {
		out = "X" + out
	}
	return out
}

func pascal(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if out == "" || unicode.IsDigit([]rune(out)[0]) {
		out = "V" + out
	}
	return out
}

func (g *gen) comment(desc, indent string) {
	desc = strings.TrimSpace(desc)
	if desc == "" {
		return
	}
	for _, line := range strings.Split(desc, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" {
			g.p("%s//\n", indent)
		} else {
			g.p("%s// %s\n", indent, line)
		}
	}
}

func (g *gen) isFloat(owner, prop string) bool { return floatProps[owner+"."+prop] }

// goType maps a property schema to a Go type. nilable reports whether the
// zero value can stand for "absent" (then optional fields use omitzero
// instead of a pointer).
func (g *gen) goType(owner, pname string, s *schema) (typ string, nilable bool, err error) {
	if o, ok := overrides[owner+"."+pname]; ok {
		return o.goType, o.nilable, nil
	}
	if s.Ref != "" {
		n := refName(s.Ref)
		t, ok := g.ds.defs[n]
		if !ok || n == "" {
			return "", false, fmt.Errorf("%s.%s: dangling $ref %q", owner, pname, s.Ref)
		}
		if skipped[n] {
			return "json.RawMessage", true, nil
		}
		if len(t.OneOf) > 0 && !handWritten[n] && !isConstUnion(t) && g.analyzeUnion(n, t) == nil {
			return n, true, nil // emitted as json.RawMessage alias
		}
		return n, false, nil
	}
	if cv := constValues(s); cv != nil {
		switch cv[0][0] {
		case '"':
			return "string", false, nil
		case 't', 'f':
			return "bool", false, nil
		default:
			return "int64", false, nil
		}
	}
	if len(s.OneOf) > 0 {
		return "", false, fmt.Errorf("%s.%s: inline oneOf is not supported; add an override in patches.go", owner, pname)
	}
	if s.Any {
		return "json.RawMessage", true, nil
	}
	switch s.Type {
	case "string":
		return "string", false, nil
	case "integer":
		return "int64", false, nil
	case "number":
		if g.isFloat(owner, pname) {
			return "float64", false, nil
		}
		return "int64", false, nil
	case "boolean":
		return "bool", false, nil
	case "null":
		return "json.RawMessage", true, nil
	case "array":
		if s.Items == nil {
			return "[]json.RawMessage", true, nil
		}
		it, _, err := g.goType(owner, pname+"Item", s.Items)
		if err != nil {
			return "", false, err
		}
		return "[]" + it, true, nil
	case "object":
		if len(s.Props) > 0 {
			name := owner + goFieldName(pname)
			if n, ok := inlineNames[owner+"."+pname]; ok {
				name = n
			}
			if _, clash := g.ds.defs[name]; clash {
				name += "_"
			}
			// The same TypeScript type inlined in several places (e.g. a tool
			// error in ToolCallResult and ToolCallCompletedState) becomes one
			// Go type with alias names, so values move between them as is.
			key := shapeKey(s)
			if first, ok := g.shapes[key]; ok && first != name {
				g.inline = append(g.inline, inlineType{name: name, s: s, aliasOf: first})
				return name, false, nil
			}
			g.shapes[key] = name
			g.inline = append(g.inline, inlineType{name: name, s: s})
			return name, false, nil
		}
		if s.Addl != nil && !s.Addl.Any {
			vt, _, err := g.goType(owner, pname+"Value", s.Addl)
			if err != nil {
				return "", false, err
			}
			return "map[string]" + vt, true, nil
		}
		return "map[string]json.RawMessage", true, nil
	}
	return "", false, fmt.Errorf("%s.%s: unsupported schema type %q", owner, pname, s.Type)
}

func (g *gen) generate(pkg string) ([]byte, error) {
	g.p("// Code generated by ahpgen from the %s; DO NOT EDIT.\n", g.title)
	g.p("// Regenerate with `go generate ./protocol/...`; schema patches live in internal/ahpgen/patches*.go.\n\n")
	g.p("package %s\n\n", pkg)
	g.pkg = pkg
	g.p("import (\n\t\"encoding/json\"\n\t\"fmt\"\n\n\t\"github.com/ahptui/ahptui/protocol/internal/wirescan\"\n)\n\n")

	// Unions first, so struct emission knows each variant's markers.
	for _, n := range g.ds.names {
		s := g.ds.defs[n]
		if len(s.OneOf) == 0 || handWritten[n] || skipped[n] || isConstUnion(s) {
			continue
		}
		if u := g.analyzeUnion(n, s); u != nil {
			g.unions[n] = u
			for _, v := range u.variants {
				g.markers[v.name] = append(g.markers[v.name], n)
			}
		}
	}

	for _, n := range g.ds.names {
		if handWritten[n] || skipped[n] || g.emitted[n] {
			continue
		}
		g.emitted[n] = true
		s := g.ds.defs[n]
		var err error
		switch {
		case n == "SessionStatus" || (len(s.Enum) > 0 && (s.Type == "number" || s.Type == "integer")):
			g.emitNumericEnum(n, s)
		case len(s.Enum) > 0 || isConstUnion(s):
			g.emitStringEnum(n, s)
		case len(s.OneOf) > 0:
			if u := g.unions[n]; u != nil {
				err = g.emitUnion(u, s)
			} else {
				g.comment(s.Description, "")
				g.p("//\n// The schema gives no discriminator for this union, so it stays raw JSON.\n")
				g.p("type %s = json.RawMessage\n\n", n)
			}
		case s.isObject():
			err = g.emitStruct(n, s)
		case s.Type == "string":
			g.comment(s.Description, "")
			g.p("type %s = string\n\n", n)
		case s.Ref != "":
			// A $def that only names another (1.0: SessionOrigin is, for
			// now, the automation origin) is the same Go type.
			g.comment(s.Description, "")
			g.p("type %s = %s\n\n", n, refName(s.Ref))
		default:
			err = fmt.Errorf("$defs/%s: unsupported top-level shape", n)
		}
		if err != nil {
			return nil, err
		}
		for len(g.inline) > 0 {
			it := g.inline[0]
			g.inline = g.inline[1:]
			if g.emitted[it.name] {
				continue
			}
			g.emitted[it.name] = true
			if it.aliasOf != "" {
				g.comment(it.s.Description, "")
				if strings.TrimSpace(it.s.Description) != "" {
					g.p("//\n")
				}
				g.p("// It has the same shape as %s, so it is the same Go type.\n", it.aliasOf)
				g.p("type %s = %s\n\n", it.name, it.aliasOf)
				continue
			}
			if err := g.emitStruct(it.name, it.s); err != nil {
				return nil, err
			}
		}
	}
	g.emitPlainDecoders()
	g.emitRegistry()
	g.emitHelpers()
	return g.buf.Bytes(), nil
}

func (g *gen) emitStringEnum(n string, s *schema) {
	g.comment(s.Description, "")
	g.p("type %s string\n\n", n)
	vals := s.Enum
	if len(vals) == 0 {
		vals = constValues(s)
	}
	g.p("const (\n")
	seen := map[string]bool{}
	for _, v := range vals {
		lit := literalText(v)
		c := n + pascal(lit)
		for seen[c] {
			c += "_"
		}
		seen[c] = true
		g.p("\t%s %s = %s\n", c, n, strconv.Quote(lit))
	}
	g.p(")\n\n")
}

func (g *gen) emitNumericEnum(n string, s *schema) {
	g.comment(s.Description, "")
	base := "int64"
	if n == "SessionStatus" {
		// Defect 3: a bitset, published as a closed enum. Any combination and
		// any future bit must survive decoding and re-encoding.
		base = "uint64"
		g.p("//\n// It is a bitset: combinations (e.g. 72 = InProgress|IsArchived) and bits\n// unknown to this version are kept as they are.\n")
	}
	g.p("type %s %s\n\n", n, base)
	names := numericEnumNames[n]
	type kv struct {
		name string
		val  int64
	}
	var list []kv
	for _, v := range s.Enum {
		if name, ok := names[string(v)]; ok {
			x, _ := strconv.ParseInt(string(v), 10, 64)
			list = append(list, kv{n + name, x})
		}
	}
	if len(list) > 0 {
		g.p("const (\n")
		for _, e := range list {
			g.p("\t%s %s = %d\n", e.name, n, e.val)
		}
		g.p(")\n\n")
	}
	if n == "SessionStatus" {
		g.p("// Has reports whether every bit of flag is set in s.\n")
		g.p("func (s SessionStatus) Has(flag SessionStatus) bool { return s&flag == flag }\n\n")
	}
}

type field struct {
	json, name, typ, omit string
	s                     *schema
	required              bool
	consts                []json.RawMessage
}

func (g *gen) fields(n string, s *schema) ([]field, error) {
	var out []field
	used := map[string]bool{}
	for _, p := range s.Props {
		typ, nilable, err := g.goType(n, p.Name, p.Schema)
		if err != nil {
			return nil, err
		}
		f := field{json: p.Name, name: goFieldName(p.Name), s: p.Schema, required: s.isRequired(p.Name)}
		for used[f.name] {
			f.name += "_"
		}
		used[f.name] = true
		if _, ov := overrides[n+"."+p.Name]; !ov {
			f.consts = constValues(p.Schema)
		}
		switch {
		case f.required:
			f.typ = typ
		case nilable:
			f.typ, f.omit = typ, ",omitzero"
		default:
			f.typ, f.omit = "*"+typ, ",omitempty"
		}
		out = append(out, f)
	}
	return out, nil
}

func (g *gen) emitStruct(n string, s *schema) error {
	fs, err := g.fields(n, s)
	if err != nil {
		return err
	}
	g.comment(s.Description, "")
	g.p("type %s struct {\n", n)
	for i, f := range fs {
		if i > 0 && strings.TrimSpace(f.s.Description) != "" {
			g.p("\n")
		}
		g.comment(f.s.Description, "\t")
		g.p("\t%s %s `json:\"%s%s\"`\n", f.name, f.typ, f.json, f.omit)
	}
	g.p("}\n\n")

	for _, u := range g.markers[n] {
		g.p("func (%s) is%s() {}\n", n, u)
	}
	if len(g.markers[n]) > 0 {
		g.p("\n")
	}

	// Pinned required properties (discriminators) are written even when the
	// Go value left them empty, so a variant built by hand encodes correctly.
	var pins []field
	for _, f := range fs {
		if f.required && len(f.consts) > 0 {
			pins = append(pins, f)
		}
	}
	if len(pins) > 0 {
		g.p("// MarshalJSON writes %s with its pinned literal fields set.\n", n)
		g.p("func (v %s) MarshalJSON() ([]byte, error) {\n\ttype plain %s\n", n, n)
		for _, f := range pins {
			lit := string(f.consts[0])
			if len(f.consts) == 1 {
				g.p("\tv.%s = %s\n", f.name, goLiteral(f.consts[0]))
			} else {
				zero := `""`
				if lit[0] != '"' {
					zero = "0"
				}
				g.p("\tif v.%s == %s {\n\t\tv.%s = %s\n\t}\n", f.name, zero, f.name, goLiteral(f.consts[0]))
			}
		}
		g.p("\treturn json.Marshal(plain(v))\n}\n\n")
	}
	return nil
}

func goLiteral(v json.RawMessage) string {
	if len(v) > 0 && v[0] == '"' {
		return strconv.Quote(literalText(v))
	}
	return string(v)
}

func (g *gen) emitUnion(u *union, s *schema) error {
	n := u.name
	discField := goFieldName(u.disc)
	g.comment(s.Description, "")
	g.p("//\n// The concrete value is in Variant (one of the %sVariant types, stored by value);\n", n)
	g.p("// it encodes and decodes as that variant, dispatching on %q. A value with an\n", u.disc)
	g.p("// unknown %q decodes to Unknown%s and re-encodes unchanged.\n", u.disc, n)
	g.p("type %s struct {\n\tVariant %sVariant\n}\n\n", n, n)

	line := fmt.Sprintf("// %sVariant is implemented by", n)
	for _, v := range u.variants {
		if len(line)+len(v.name) > 76 {
			g.p("%s\n", line)
			line = "//"
		}
		line += " " + v.name + ","
	}
	g.p("%s\n// and Unknown%s.\n", line, n)
	g.p("type %sVariant interface{ is%s() }\n\n", n, n)

	g.p("// Unknown%s is a %s this version does not model. Raw is the exact\n// JSON it was decoded from; it is written back unchanged.\n", n, n)
	g.p("type Unknown%s struct {\n\tDiscriminator string\n\tRaw json.RawMessage\n}\n\n", n)
	g.p("func (Unknown%s) is%s() {}\n\n", n, n)
	g.p("// MarshalJSON writes Raw back, or a bare discriminator when Raw is empty.\n")
	g.p("func (v Unknown%s) MarshalJSON() ([]byte, error) { return marshalUnknown(v.Raw, %q, v.Discriminator) }\n\n", n, u.disc)

	g.p("// New%s wraps a variant.\nfunc New%s(v %sVariant) %s { return %s{Variant: v} }\n\n", n, n, n, n, n)

	g.p("// Kind returns the %q discriminator of the held variant (\"\" when empty).\n", u.disc)
	g.p("func (x %s) Kind() string {\n\tswitch v := x.Variant.(type) {\n", n)
	for _, v := range u.variants {
		if len(v.values) == 1 {
			g.p("\tcase %s:\n\t\treturn %s\n", v.name, strconv.Quote(literalText(v.values[0])))
		} else {
			g.p("\tcase %s:\n\t\tif v.%s != \"\" {\n\t\t\treturn string(v.%s)\n\t\t}\n\t\treturn %s\n", v.name, discField, discField, strconv.Quote(literalText(v.values[0])))
		}
	}
	g.p("\tcase Unknown%s:\n\t\treturn v.Discriminator\n\t}\n\treturn \"\"\n}\n\n", n)

	g.p("// MarshalJSON encodes the held variant; an empty %s encodes as null.\n", n)
	g.p("func (x %s) MarshalJSON() ([]byte, error) {\n\tif x.Variant == nil {\n\t\treturn []byte(\"null\"), nil\n\t}\n\treturn json.Marshal(x.Variant)\n}\n\n", n)

	nPeek := 1 + len(u.peekProps)
	peekKeys := []string{strconv.Quote(u.disc)}
	for _, pp := range u.peekProps {
		peekKeys = append(peekKeys, strconv.Quote(pp))
	}
	g.p("// UnmarshalJSON picks the variant by %q. The discriminator is read with\n", u.disc)
	g.p("// scanMembers rather than a first json.Unmarshal, so b is decoded once.\n")
	g.p("func (x *%s) UnmarshalJSON(b []byte) error {\n", n)
	g.p("\tif isJSONNull(b) {\n\t\tx.Variant = nil\n\t\treturn nil\n\t}\n")
	g.p("\tvar peek [%d]json.RawMessage\n", nPeek)
	g.p("\tscanned := scanMembers(b, peek[:], %s)\n", strings.Join(peekKeys, ", "))
	g.p("\tif !scanned {\n\t\tvar err error\n\t\tif peek, err = peek%s(b); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n", n)
	g.p("\td := discValue(peek[0])\n")
	g.p("\tswitch d {\n")

	// Group variants by discriminator literal, keeping schema order.
	var order []string
	groups := map[string][]*variant{}
	for _, v := range u.variants {
		for _, val := range v.values {
			k := literalText(val)
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], v)
		}
	}
	peekIdx := map[string]int{}
	for i, pp := range u.peekProps {
		peekIdx[pp] = i
	}
	decode := func(indent, vname string) {
		if g.plainFields(vname) != nil {
			g.p("%sif v, ok := decodePlain%s(b); ok {\n%s\tx.Variant = v\n%s\treturn nil\n%s}\n", indent, vname, indent, indent, indent)
			g.plainDecoders[vname] = true
		}
		g.p("%svar v %s\n", indent, vname)
		g.p("%sif err := json.Unmarshal(b, &v); err != nil {\n%s\treturn unionError(%q, d, b, err)\n%s}\n", indent, indent, n, indent)
		g.p("%sx.Variant = v\n%sreturn nil\n", indent, indent)
	}
	for _, k := range order {
		g.p("\tcase %s:\n", strconv.Quote(k))
		vs := groups[k]
		if len(vs) == 1 {
			decode("\t\t", vs[0].name)
			continue
		}
		for _, v := range vs {
			var conds []string
			for _, t := range v.ties {
				conds = append(conds, fmt.Sprintf("discValue(peek[%d]) == %s", 1+peekIdx[t[0]], strconv.Quote(literalText(json.RawMessage(t[1])))))
			}
			if len(conds) == 0 {
				conds = []string{"true"}
			}
			g.p("\t\tif %s {\n", strings.Join(conds, " && "))
			decode("\t\t\t", v.name)
			g.p("\t\t}\n")
		}
	}
	g.p("\t}\n")
	// The scan does not validate nested values; Raw must be valid JSON, and
	// the error for invalid input is the one the exact peek gives.
	g.p("\tif scanned && !json.Valid(b) {\n\t\t_, err := peek%s(b)\n\t\treturn err\n\t}\n", n)
	g.p("\tx.Variant = Unknown%s{Discriminator: d, Raw: append(json.RawMessage(nil), b...)}\n\treturn nil\n}\n\n", n)

	g.emitWireVariants(u, order, groups)

	g.p("// peek%s reads the members %s dispatches on\n", n, n)
	g.p("// with encoding/json: the exact path for input scanMembers does not handle.\n")
	g.p("func peek%s(b []byte) ([%d]json.RawMessage, error) {\n", n, nPeek)
	g.p("\tvar p struct {\n\t\tD json.RawMessage `json:%q`\n", u.disc)
	for i, pp := range u.peekProps {
		g.p("\t\tP%d json.RawMessage `json:%q`\n", i, pp)
	}
	g.p("\t}\n")
	g.p("\tif err := json.Unmarshal(b, &p); err != nil {\n\t\treturn [%d]json.RawMessage{}, fmt.Errorf(\"decode %s: %%w\", err)\n\t}\n", nPeek, n)
	fieldsList := []string{"p.D"}
	for i := range u.peekProps {
		fieldsList = append(fieldsList, fmt.Sprintf("p.P%d", i))
	}
	g.p("\treturn [%d]json.RawMessage{%s}, nil\n}\n\n", nPeek, strings.Join(fieldsList, ", "))
	return nil
}

// emitRegistry lists every generated type by its schema name, so tools and
// tests can decode a message given only the type name (as the round-trip
// fixtures do), and every union with its discriminator.
func (g *gen) emitRegistry() {
	g.p("// wireTypes returns a new zero value of each named wire type, by $def name.\n")
	g.p("var wireTypes = map[string]func() any{\n")
	var names []string
	for n := range g.emitted {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		g.p("\t%q: func() any { return new(%s) },\n", n, n)
	}
	g.p("}\n\n")
	g.p("// unionDiscriminators names the discriminator property of every generated union.\n")
	g.p("var unionDiscriminators = map[string]string{\n")
	var us []string
	for n := range g.unions {
		us = append(us, n)
	}
	sort.Strings(us)
	for _, n := range us {
		g.p("\t%q: %q,\n", n, g.unions[n].disc)
	}
	g.p("}\n\n")
}

func (g *gen) emitHelpers() {
	g.p(`// The JSON scanning is shared by every wire version (internal/wirescan);
// these names keep the generated decoders short.
func scanMembers(b []byte, out []json.RawMessage, keys ...string) bool {
	return wirescan.ScanMembers(b, out, keys...)
}
func unionError(union, d string, b []byte, err error) error {
	return wirescan.UnionError(union, d, b, err)
}
func scanPlainObject(b []byte, set func(key, raw []byte) bool) bool {
	return wirescan.ScanPlainObject(b, set)
}
func jsonString(raw []byte) (string, bool)              { return wirescan.JSONString(raw) }
func jsonBool(raw []byte) (v, ok bool)                  { return wirescan.JSONBool(raw) }
func scanArray(raw []byte, elem func(e []byte) bool) bool { return wirescan.ScanArray(raw, elem) }

// discValue returns a discriminator's text: the string for a JSON string,
// the literal itself otherwise, "" when absent.
func discValue(raw json.RawMessage) string {
	if s, ok := jsonString(raw); ok {
		return s
	}
	return string(raw)
}

func isJSONNull(b []byte) bool {
	for i, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case 'n':
			return string(b[i:]) == "null" || len(b[i:]) >= 4 && string(b[i:i+4]) == "null"
		}
		return false
	}
	return false
}

// marshalUnknown writes an unknown union member back exactly as received.
func marshalUnknown(raw json.RawMessage, disc, value string) ([]byte, error) {
	if len(raw) > 0 {
		return raw, nil
	}
	return json.Marshal(map[string]string{disc: value})
}
`)
}

// plainField is a property a decodePlain fast path can fill.
type plainField struct {
	json, name string
	kind       string // "string", "Text", an enum type name, or "union"
	typ        string // the union type for kind "union"
	ptr        bool   // optional: the Go field is a pointer
}

// plainFields lists the properties of variant n that a decodePlain fast
// path fills: strings without escapes, and objects of a generated union
// (decoded by that union's own UnmarshalJSON). It is nil unless every
// required property is one of those, so ordinary values of n take the
// fast path. Types come from the schema, not goType, which has side effects
// on inline-type emission.
func (g *gen) plainFields(n string) []plainField {
	s := g.ds.defs[n]
	if s == nil || !s.isObject() {
		return nil
	}
	var out []plainField
	used := map[string]bool{}
	for _, p := range s.Props {
		name := goFieldName(p.Name)
		for used[name] {
			name += "_"
		}
		used[name] = true
		req := s.isRequired(p.Name)
		f := plainField{json: p.Name, name: name, ptr: !req}
		f.kind = g.plainKind(n, p.Name, p.Schema)
		if _, ov := overrides[n+"."+p.Name]; f.kind == "" && !ov {
			switch ps := p.Schema; {
			case ps.Ref != "" && g.unions[refName(ps.Ref)] != nil:
				f.kind, f.typ = "union", refName(ps.Ref)
			case ps.Ref == "#/$defs/StringOrMarkdown":
				f.kind = "StringOrMarkdown"
			case ps.Type == "boolean" && ps.Const == nil:
				f.kind = "bool"
			case ps.Type == "array" && ps.Items != nil && ps.Items.Ref != "" && g.unions[refName(ps.Items.Ref)] != nil:
				f.kind, f.typ = "[]union", refName(ps.Items.Ref)
				f.ptr = false // optional slices are plain values with omitzero
			case ps.Ref != "" && g.isRawUnion(refName(ps.Ref)):
				// A union without a discriminator (ToolInput) stays raw
				// JSON; without this every tool call carrying input left
				// the fast path.
				f.kind, f.typ = "raw", refName(ps.Ref)
				f.ptr = false // a nil raw value is absent (omitzero)
			}
		}
		switch {
		case f.kind == "":
			if req {
				return nil
			}
			continue
		case f.ptr && f.kind != "string" && f.kind != "union" && f.kind != "bool":
			continue // optional Text, enum or StringOrMarkdown: rare, left to encoding/json
		}
		out = append(out, f)
	}
	return out
}

// isRawUnion reports a $def emitted as a json.RawMessage alias: a oneOf
// the generator finds no discriminator for (see goType).
func (g *gen) isRawUnion(n string) bool {
	t, ok := g.ds.defs[n]
	return ok && len(t.OneOf) > 0 && !handWritten[n] && !skipped[n] && !isConstUnion(t) && g.unions[n] == nil
}

// plainKind is "string", "Text" or the name of a string enum type when the
// property decodes from a JSON string into that Go type, "" otherwise.
func (g *gen) plainKind(owner, pname string, s *schema) string {
	if o, ok := overrides[owner+"."+pname]; ok {
		if o.goType == "Text" {
			return "Text"
		}
		return ""
	}
	if s.Ref != "" {
		n := refName(s.Ref)
		t, ok := g.ds.defs[n]
		if !ok || handWritten[n] || skipped[n] || n == "SessionStatus" || len(t.Props) > 0 {
			return ""
		}
		if len(t.Enum) > 0 && (t.Type == "number" || t.Type == "integer") {
			return ""
		}
		if len(t.Enum) > 0 || isConstUnion(t) {
			for _, v := range constValues(t) {
				if len(v) == 0 || v[0] != '"' {
					return ""
				}
			}
			return n
		}
		if t.Type == "string" && len(t.OneOf) == 0 {
			return "string" // emitted as an alias of string
		}
		return ""
	}
	if cv := constValues(s); cv != nil {
		for _, v := range cv {
			if len(v) == 0 || v[0] != '"' {
				return ""
			}
		}
		return "string"
	}
	if s.Type == "string" && !s.Any && len(s.OneOf) == 0 {
		return "string"
	}
	return ""
}

// emitPlainDecoders writes the fast paths the union decoders call: a variant
// whose members are all strings without escapes, or objects that a nested
// union decoder accepts, is valid JSON by construction (a union decoder
// succeeds only on valid JSON), so it is filled directly instead of through
// a second, validating json.Unmarshal. Anything else (an unknown, escaped or
// differently-cased key, another kind of value, an escaped string, a nested
// error) makes it report false, and the caller decodes with encoding/json as
// before, which also words any error.
func (g *gen) emitPlainDecoders() {
	var names []string
	for n := range g.plainDecoders {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fs := g.plainFields(n)
		g.p("// decodePlain%s fills a %s on the fast path; see scanPlainObject.\n", n, n)
		g.p("func decodePlain%s(b []byte) (v %s, ok bool) {\n", n, n)
		g.p("\tok = scanPlainObject(b, func(key, raw []byte) bool {\n\t\tswitch string(key) {\n")
		for _, f := range fs {
			g.p("\t\tcase %q:\n", f.json)
			switch {
			case f.kind == "union" && f.ptr:
				g.p("\t\t\tu := new(%s)\n\t\t\tif raw[0] != '{' || u.UnmarshalJSON(raw) != nil {\n\t\t\t\treturn false\n\t\t\t}\n\t\t\tv.%s = u\n", f.typ, f.name)
			case f.kind == "union":
				g.p("\t\t\tif raw[0] != '{' || v.%s.UnmarshalJSON(raw) != nil {\n\t\t\t\treturn false\n\t\t\t}\n", f.name)
			case f.kind == "StringOrMarkdown":
				g.p("\t\t\tif (raw[0] != '\"' && raw[0] != '{') || v.%s.UnmarshalJSON(raw) != nil {\n\t\t\t\treturn false\n\t\t\t}\n", f.name)
			case f.kind == "bool":
				g.p("\t\t\tb, ok := jsonBool(raw)\n\t\t\tif !ok {\n\t\t\t\treturn false\n\t\t\t}\n")
				if f.ptr {
					g.p("\t\t\tv.%s = &b\n", f.name)
				} else {
					g.p("\t\t\tv.%s = b\n", f.name)
				}
			case f.kind == "raw":
				// encoding/json hands null to RawMessage as is; leave that,
				// and anything not valid, to it.
				g.p("\t\t\tif raw[0] == 'n' || !json.Valid(raw) {\n\t\t\t\treturn false\n\t\t\t}\n")
				g.p("\t\t\tv.%s = append(%s(nil), raw...)\n", f.name, f.typ)
			case f.kind == "[]union":
				g.p("\t\t\tl := make([]%s, 0)\n", f.typ)
				g.p("\t\t\tif !scanArray(raw, func(e []byte) bool {\n\t\t\t\tvar u %s\n", f.typ)
				g.p("\t\t\t\tif e[0] != '{' || u.UnmarshalJSON(e) != nil {\n\t\t\t\t\treturn false\n\t\t\t\t}\n")
				g.p("\t\t\t\tl = append(l, u)\n\t\t\t\treturn true\n\t\t\t}) {\n\t\t\t\treturn false\n\t\t\t}\n")
				g.p("\t\t\tv.%s = l\n", f.name)
			default:
				g.p("\t\t\ts, ok := jsonString(raw)\n\t\t\tif !ok {\n\t\t\t\treturn false\n\t\t\t}\n")
				switch {
				case f.ptr:
					g.p("\t\t\tv.%s = &s\n", f.name)
				case f.kind == "string":
					g.p("\t\t\tv.%s = s\n", f.name)
				case f.kind == "Text":
					g.p("\t\t\tv.%s = NewText(s)\n", f.name)
				default:
					g.p("\t\t\tv.%s = %s(s)\n", f.name, f.kind)
				}
			}
		}
		g.p("\t\tdefault:\n\t\t\treturn false\n\t\t}\n\t\treturn true\n\t})\n")
		g.p("\treturn v, ok\n}\n\n")
	}
}

// emitWireVariants writes, for package protocol, the table the one-pass
// decoder (protocol/wiredecode.go) reads a union from: its discriminator
// and the variant each value picks. A union whose variants share a
// discriminator value (told apart by another member) gets none and is
// decoded by its UnmarshalJSON.
func (g *gen) emitWireVariants(u *union, order []string, groups map[string][]*variant) {
	if g.pkg != "protocol" || len(u.peekProps) > 0 {
		return
	}
	for _, k := range order {
		if len(groups[k]) != 1 {
			return
		}
	}
	n := u.name
	g.p("// wireVariants is the table the one-pass decoder (wiredecode.go) reads a\n")
	g.p("// %s with: its discriminator and a zero value of each variant.\n", n)
	g.p("func (*%s) wireVariants() (string, map[string]any) { return %q, wireVariants%s }\n\n", n, u.disc, n)
	g.p("var wireVariants%s = map[string]any{\n", n)
	for _, k := range order {
		g.p("\t%s: %s{},\n", strconv.Quote(k), groups[k][0].name)
	}
	g.p("}\n\n")
}
