package protocol

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// The one-pass decoder: large results (a chat's snapshot, a page of
// sessions, the root state) are read here in a single pass that validates
// as it goes, instead of by encoding/json, which validates a value's bytes
// once more at every json.RawMessage and custom decoder it passes through
// (checkValid was about 30% of a snapshot's decode) and scans them again to
// decode. The decoder knows no more than encoding/json's rules for the
// shapes it takes; on anything else it gives up and the caller decodes the
// same bytes with encoding/json from scratch, so every result, and every
// error for malformed input, is encoding/json's own:
//
//   - member names match exactly; one that is escaped, not ASCII, or equal
//     to a field's name only when case is ignored is encoding/json's
//     (case-insensitive) business, as is a member that appears twice;
//   - numbers, strings and literals are checked against the JSON grammar;
//     a string with a surrogate escape or invalid UTF-8 goes to
//     encoding/json, which has its own rules for those;
//   - a type with its own UnmarshalJSON gets the value's bytes after they
//     have been validated, as encoding/json gives them; a generated union
//     (wireVariants) is read directly when its variant is known;
//   - an interface, a []byte, a map with non-string keys, a ",string"
//     field and other rarities are decoded member by member with
//     json.Unmarshal.
//
// The decoder never allocates more than the decoded value does, and recurses
// at most maxWireDepth levels, encoding/json's own nesting limit.

// UnmarshalWire decodes the JSON b into v, a pointer to a zero value, with
// exactly encoding/json's result and errors: in one validating pass when it
// can, through json.Unmarshal otherwise.
func UnmarshalWire(b []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		e := rv.Elem()
		if e.IsZero() {
			d := wireDecoder{b: b}
			d.ws()
			if d.value(e, planOf(e.Type())) && d.ws() == len(b) {
				return nil
			}
			e.SetZero()
		}
	}
	return json.Unmarshal(b, v)
}

// maxWireDepth is encoding/json's limit on nesting; deeper input is left
// to it, to be refused with its error.
const maxWireDepth = 10000

type wireKind uint8

const (
	wkString wireKind = iota
	wkBool
	wkInt
	wkUint
	wkFloat
	wkPtr
	wkSlice
	wkMap
	wkStruct
	wkUnion     // a generated union with a wireVariants table
	wkText      // Text: a string, built with NewText
	wkRaw       // json.RawMessage and its aliases: validated and copied
	wkUnmarshal // another json.Unmarshaler: validated, then called
	wkSlow      // anything else: json.Unmarshal of the member alone
	wkSnapshot  // Snapshot: its state decoded by its resource's channel kind
)

type wireField struct {
	name  string
	index int
	plan  *wirePlan
}

type wireVariant struct {
	typ  reflect.Type
	plan *wirePlan
}

type wirePlan struct {
	kind wireKind
	typ  reflect.Type
	bits int       // wkInt, wkUint, wkFloat
	elem *wirePlan // wkPtr, wkSlice, wkMap
	// wkStruct
	fields []wireField
	byName map[string]int // index into fields
	lower  map[string]bool
	// wkUnion
	key      string
	variants map[string]wireVariant
}

type wireVariantTable interface {
	wireVariants() (string, map[string]any)
}

var (
	wirePlans   sync.Map // reflect.Type → *wirePlan
	wirePlansMu sync.Mutex
)

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	variantsType        = reflect.TypeFor[wireVariantTable]()
	textType            = reflect.TypeFor[Text]()
	rawType             = reflect.TypeFor[json.RawMessage]()
	snapshotType        = reflect.TypeFor[Snapshot]()
)

// planOf returns the cached plan of t, building it (and the plans it
// refers to, recursive types included) on first use.
func planOf(t reflect.Type) *wirePlan {
	if p, ok := wirePlans.Load(t); ok {
		return p.(*wirePlan)
	}
	wirePlansMu.Lock()
	defer wirePlansMu.Unlock()
	building := map[reflect.Type]*wirePlan{}
	p := buildPlan(t, building)
	for t, p := range building {
		wirePlans.LoadOrStore(t, p)
	}
	return p
}

func buildPlan(t reflect.Type, building map[reflect.Type]*wirePlan) *wirePlan {
	if p, ok := wirePlans.Load(t); ok {
		return p.(*wirePlan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &wirePlan{typ: t, kind: wkSlow}
	building[t] = p
	pt := reflect.PointerTo(t)
	switch {
	case t == textType:
		p.kind = wkText
		return p
	case t == rawType:
		p.kind = wkRaw
		return p
	case t == snapshotType:
		p.kind = wkSnapshot
		return p
	case t.Kind() != reflect.Pointer && pt.Implements(variantsType):
		key, vs := reflect.New(t).Interface().(wireVariantTable).wireVariants()
		p.key, p.variants = key, make(map[string]wireVariant, len(vs))
		for d, zero := range vs {
			vt := reflect.TypeOf(zero)
			vp := buildPlan(vt, building)
			p.variants[d] = wireVariant{typ: vt, plan: vp}
		}
		p.kind = wkUnion
		// The discriminator must be a field of every variant, so that a
		// second one in the object is noticed (and left to encoding/json).
		for _, v := range p.variants {
			if v.plan.kind != wkStruct {
				p.kind = wkUnmarshal
				break
			}
			if _, ok := v.plan.byName[key]; !ok {
				p.kind = wkUnmarshal
				break
			}
		}
		return p
	case t.Implements(unmarshalerType) && t.Kind() != reflect.Pointer,
		t.Kind() != reflect.Pointer && pt.Implements(unmarshalerType):
		p.kind = wkUnmarshal
		return p
	case t.Implements(textUnmarshalerType) || pt.Implements(textUnmarshalerType):
		return p // wkSlow: encoding/json's TextUnmarshaler rules
	}
	switch t.Kind() {
	case reflect.String:
		p.kind = wkString
	case reflect.Bool:
		p.kind = wkBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind, p.bits = wkInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind, p.bits = wkUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		p.kind, p.bits = wkFloat, t.Bits()
	case reflect.Pointer:
		p.kind, p.elem = wkPtr, buildPlan(t.Elem(), building)
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 { // []byte is base64 to encoding/json
			p.kind, p.elem = wkSlice, buildPlan(t.Elem(), building)
		}
	case reflect.Map:
		kt := t.Key()
		if kt.Kind() == reflect.String && !reflect.PointerTo(kt).Implements(textUnmarshalerType) {
			p.kind, p.elem = wkMap, buildPlan(t.Elem(), building)
		}
	case reflect.Struct:
		buildStruct(p, t, building)
	}
	return p
}

// buildStruct fills the plan of a struct whose fields are plain: exported,
// not embedded, named by a json tag or their Go name, without ",string".
// Any other struct is left to encoding/json (wkSlow).
func buildStruct(p *wirePlan, t reflect.Type, building map[reflect.Type]*wirePlan) {
	var fields []wireField
	byName := map[string]int{}
	lower := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		for o := range strings.SplitSeq(opts, ",") {
			if o == "string" {
				return
			}
		}
		if name == "" {
			name = f.Name
		}
		if !plainName(name) {
			return
		}
		if _, dup := byName[name]; dup {
			return
		}
		lname := strings.ToLower(name)
		if lower[lname] {
			return // two fields equal but for case: encoding/json's rules
		}
		lower[lname] = true
		byName[name] = len(fields)
		fields = append(fields, wireField{name: name, index: i, plan: buildPlan(f.Type, building)})
	}
	p.kind, p.fields, p.byName, p.lower = wkStruct, fields, byName, lower
}

// plainName reports a member name of printable ASCII other than '"' and
// '\\': the names matched here byte for byte.
func plainName(s string) bool {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return false
		}
	}
	return s != ""
}

type wireDecoder struct {
	b     []byte
	i     int
	depth int
}

func (d *wireDecoder) ws() int {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\r', '\n':
			d.i++
		default:
			return d.i
		}
	}
	return d.i
}

// value decodes the value at d.i (after white space) into v, which holds
// its type's zero value. It reports false when encoding/json must decide.
func (d *wireDecoder) value(v reflect.Value, p *wirePlan) bool {
	if d.i >= len(d.b) {
		return false
	}
	c := d.b[d.i]
	if c == 'n' {
		return d.null(v, p)
	}
	switch p.kind {
	case wkString:
		if c != '"' {
			return false
		}
		s, ok := d.str()
		if ok {
			v.SetString(s)
		}
		return ok
	case wkText:
		if c != '"' {
			return false
		}
		s, ok := d.str()
		if ok {
			v.Set(reflect.ValueOf(NewText(s)))
		}
		return ok
	case wkBool:
		switch {
		case d.lit("true"):
			v.SetBool(true)
		case d.lit("false"):
		default:
			return false
		}
		return true
	case wkInt:
		n, ok := d.number()
		if !ok {
			return false
		}
		x, ok := parseInt(n)
		if !ok || v.OverflowInt(x) {
			return false
		}
		v.SetInt(x)
		return true
	case wkUint:
		n, ok := d.number()
		if !ok || n[0] == '-' {
			return false
		}
		x, ok := parseInt(n)
		if !ok || v.OverflowUint(uint64(x)) {
			return false
		}
		v.SetUint(uint64(x))
		return true
	case wkFloat:
		n, ok := d.number()
		if !ok {
			return false
		}
		x, ok := parseInt(n)
		if ok && -1<<53 <= x && x <= 1<<53 && (x != 0 || n[0] != '-') { // -0 is ParseFloat's
			v.SetFloat(float64(x)) // exact in a float64 and a float32 rounds it as ParseFloat does
			return true
		}
		f, err := strconv.ParseFloat(string(n), p.bits)
		if err != nil {
			return false
		}
		v.SetFloat(f)
		return true
	case wkPtr:
		e := reflect.New(p.typ.Elem())
		if !d.value(e.Elem(), p.elem) {
			return false
		}
		v.Set(e)
		return true
	case wkSlice:
		return d.slice(v, p)
	case wkMap:
		return d.object(v, p)
	case wkStruct:
		return d.object(v, p)
	case wkUnion:
		return d.union(v, p)
	case wkSnapshot:
		return d.snapshot(v.Addr().Interface().(*Snapshot))
	}
	// wkRaw, wkUnmarshal, wkSlow: the value's bytes, validated here.
	s := d.i
	if !d.skip() {
		return false
	}
	raw := d.b[s:d.i:d.i]
	switch p.kind {
	case wkRaw:
		v.SetBytes(append([]byte(nil), raw...))
		return true
	case wkUnmarshal:
		return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw) == nil
	}
	return json.Unmarshal(raw, v.Addr().Interface()) == nil
}

// null decodes a null literal as encoding/json does: a custom decoder is
// called with it, anything else keeps its zero value.
func (d *wireDecoder) null(v reflect.Value, p *wirePlan) bool {
	if !d.lit("null") {
		return false
	}
	switch p.kind {
	case wkRaw:
		v.SetBytes([]byte("null"))
	case wkUnmarshal, wkUnion, wkText, wkSnapshot:
		return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON([]byte("null")) == nil
	case wkSlow:
		return json.Unmarshal([]byte("null"), v.Addr().Interface()) == nil
	}
	return true
}

func (d *wireDecoder) lit(s string) bool {
	if len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

// parseInt parses the text of a JSON number that is an integer of at most
// 18 digits (which cannot overflow an int64); anything else is left to
// strconv, which encoding/json uses.
func parseInt(n []byte) (int64, bool) {
	neg := n[0] == '-'
	digits := n
	if neg {
		digits = n[1:]
	}
	if len(digits) > 18 {
		x, err := strconv.ParseInt(string(n), 10, 64)
		return x, err == nil
	}
	var x int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		x = x*10 + int64(c-'0')
	}
	if neg {
		x = -x
	}
	return x, true
}

// number reads a JSON number and returns its text.
func (d *wireDecoder) number() ([]byte, bool) {
	b, i := d.b, d.i
	s := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	d.i = i
	return b[s:i], true
}

// str reads the string literal at d.i. An escape is decoded here unless it
// is a \u surrogate; invalid UTF-8 and surrogates are encoding/json's.
func (d *wireDecoder) str() (string, bool) {
	b := d.b
	i := d.i + 1
	s := i
	ascii := true
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			in := b[s:i]
			if !ascii && !utf8.Valid(in) {
				return "", false
			}
			d.i = i + 1
			return string(in), true
		case c == '\\':
			return d.escaped(s, i)
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		i++
	}
	return "", false
}

// escaped finishes a string that has an escape at b[i] (its text starts at
// b[s]).
func (d *wireDecoder) escaped(s, i int) (string, bool) {
	b := d.b
	// The text is never longer than the literal: size it once.
	end := i
	for end < len(b) && b[end] != '"' {
		if b[end] == '\\' {
			end++
		}
		end++
	}
	var out strings.Builder
	out.Grow(end - s)
	out.Write(b[s:i])
	ascii := true
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			str := out.String()
			if !ascii && !utf8.ValidString(str) {
				return "", false
			}
			d.i = i + 1
			return str, true
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
			out.WriteByte(c)
			i++
		case c != '\\':
			// Copy the run up to the next byte that needs a look.
			j := i + 1
			for j < len(b) && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 && b[j] < utf8.RuneSelf {
				j++
			}
			out.Write(b[i:j])
			i = j
		default:
			if i+1 >= len(b) {
				return "", false
			}
			switch b[i+1] {
			case '"', '\\', '/':
				out.WriteByte(b[i+1])
			case 'b':
				out.WriteByte('\b')
			case 'f':
				out.WriteByte('\f')
			case 'n':
				out.WriteByte('\n')
			case 'r':
				out.WriteByte('\r')
			case 't':
				out.WriteByte('\t')
			case 'u':
				r, ok := hex4(b, i+2)
				if !ok || utf16.IsSurrogate(r) {
					return "", false
				}
				out.WriteRune(r)
				i += 6
				continue
			default:
				return "", false
			}
			i += 2
		}
	}
	return "", false
}

// hex4 reads the four hex digits of a \u escape at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, h := range b[i : i+4] {
		switch {
		case '0' <= h && h <= '9':
			h -= '0'
		case 'a' <= h && h <= 'f':
			h -= 'a' - 10
		case 'A' <= h && h <= 'F':
			h -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(h)
	}
	return r, true
}

// key reads a member name and the colon after it; only plain names
// (plainName) are taken.
func (d *wireDecoder) key() ([]byte, bool) {
	b := d.b
	if d.i >= len(b) || b[d.i] != '"' {
		return nil, false
	}
	s := d.i + 1
	i := s
	for i < len(b) && b[i] != '"' {
		if c := b[i]; c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return nil, false
		}
		i++
	}
	if i >= len(b) {
		return nil, false
	}
	k := b[s:i]
	d.i = i + 1
	d.ws()
	if d.i >= len(b) || b[d.i] != ':' {
		return nil, false
	}
	d.i++
	d.ws()
	return k, true
}

// object decodes a struct's or a map's members.
func (d *wireDecoder) object(v reflect.Value, p *wirePlan) bool {
	if d.b[d.i] != '{' {
		return false
	}
	if d.depth++; d.depth > maxWireDepth {
		return false
	}
	defer func() { d.depth-- }()
	d.i++
	if d.ws(); d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		if p.kind == wkMap {
			v.Set(reflect.MakeMap(p.typ))
		}
		return true
	}
	var seen uint64
	var seenMore []bool
	if p.kind == wkStruct && len(p.fields) > 64 {
		seenMore = make([]bool, len(p.fields))
	}
	next := 0
	var m reflect.Value
	if p.kind == wkMap {
		m = reflect.MakeMap(p.typ)
		v.Set(m)
	}
	for {
		if p.kind == wkMap {
			if d.i >= len(d.b) || d.b[d.i] != '"' {
				return false
			}
			k, ok := d.str()
			if !ok {
				return false
			}
			if d.ws(); d.i >= len(d.b) || d.b[d.i] != ':' {
				return false
			}
			d.i++
			d.ws()
			e := reflect.New(p.typ.Elem()).Elem()
			if !d.value(e, p.elem) {
				return false
			}
			m.SetMapIndex(reflect.ValueOf(k).Convert(p.typ.Key()), e)
		} else {
			k, ok := d.key()
			if !ok {
				return false
			}
			// Members mostly come in the fields' order: try the one after
			// the last before the map.
			fi, known := next, next < len(p.fields) && p.fields[next].name == string(k)
			if !known {
				fi, known = p.byName[string(k)]
			}
			next = fi + 1
			switch {
			case known:
				if seenMore != nil {
					if seenMore[fi] {
						return false
					}
					seenMore[fi] = true
				} else {
					if seen&(1<<fi) != 0 {
						return false // a repeated member: encoding/json merges
					}
					seen |= 1 << fi
				}
				f := p.fields[fi]
				if !d.value(v.Field(f.index), f.plan) {
					return false
				}
			case p.lower[strings.ToLower(string(k))]:
				return false // a field's name in another case
			default:
				if !d.skip() { // an unknown member: validated, ignored
					return false
				}
			}
		}
		if more, ok := d.more('}'); !more {
			return ok
		}
	}
}

// more reads what follows a member or an element: a comma (more), the
// closing byte (done, ok), or anything else (a syntax error: not ok).
func (d *wireDecoder) more(closing byte) (more, ok bool) {
	if d.ws(); d.i >= len(d.b) {
		return false, false
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		d.ws()
		return true, true
	case closing:
		d.i++
		return false, true
	}
	return false, false
}

func (d *wireDecoder) slice(v reflect.Value, p *wirePlan) bool {
	if d.b[d.i] != '[' {
		return false
	}
	if d.depth++; d.depth > maxWireDepth {
		return false
	}
	defer func() { d.depth-- }()
	d.i++
	if d.ws(); d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		v.Set(reflect.MakeSlice(p.typ, 0, 0))
		return true
	}
	n := 0
	for {
		if n == v.Cap() {
			v.Grow(max(4, n))
		}
		v.SetLen(n + 1)
		if !d.value(v.Index(n), p.elem) {
			return false
		}
		n++
		if more, ok := d.more(']'); !more {
			return ok
		}
	}
}

// union reads a generated union: the discriminator (the first member, or
// found by a scan of the object's members), then the variant it names.
// An unknown or unusual discriminator leaves it to the union's own decoder.
func (d *wireDecoder) union(v reflect.Value, p *wirePlan) bool {
	if d.b[d.i] != '{' {
		return false
	}
	disc, ok := d.discriminator(p.key)
	var vt wireVariant
	if ok {
		vt, ok = p.variants[disc]
	}
	if !ok {
		s := d.i
		if !d.skip() {
			return false
		}
		return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(d.b[s:d.i:d.i]) == nil
	}
	x := reflect.New(vt.typ).Elem()
	if !d.value(x, vt.plan) {
		return false
	}
	v.Field(0).Set(x)
	return true
}

// discriminator finds the plain string value of the member key in the
// object at d.i without moving d.i. It reports false for anything the
// union's own decoder should judge.
func (d *wireDecoder) discriminator(key string) (string, bool) {
	save := d.i
	defer func() { d.i = save }()
	d.i++
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		return "", false
	}
	for {
		k, ok := d.key()
		if !ok {
			return "", false
		}
		if string(k) == key {
			if d.i >= len(d.b) || d.b[d.i] != '"' {
				return "", false
			}
			return d.str()
		}
		if !d.skipFast() {
			return "", false
		}
		if d.ws(); d.i >= len(d.b) || d.b[d.i] != ',' {
			return "", false
		}
		d.i++
		d.ws()
	}
}

// skipFast steps over the value at d.i by its strings and brackets only;
// the discriminator search uses it, and the variant's decode then checks
// every byte.
func (d *wireDecoder) skipFast() bool {
	b, i := d.b, d.i
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return false
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth < 0 {
				return false
			}
		case ',':
			if depth == 0 {
				d.i = i
				return true
			}
		}
		i++
		if depth == 0 {
			for i < len(b) {
				switch b[i] {
				case ' ', '\t', '\r', '\n':
					i++
					continue
				case ',', '}':
					d.i = i
					return true
				}
				break
			}
			if i < len(b) && (b[i] == '"' || b[i] == '{' || b[i] == '[') {
				return false
			}
		}
	}
	return false
}

// skip steps over the value at d.i, checking it against the JSON grammar.
func (d *wireDecoder) skip() bool {
	if d.i >= len(d.b) {
		return false
	}
	switch c := d.b[d.i]; {
	case c == '"':
		return d.skipString()
	case c == '{' || c == '[':
		if d.depth++; d.depth > maxWireDepth {
			return false
		}
		defer func() { d.depth-- }()
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		d.i++
		if d.ws(); d.i < len(d.b) && d.b[d.i] == end {
			d.i++
			return true
		}
		for {
			if c == '{' {
				if d.i >= len(d.b) || d.b[d.i] != '"' || !d.skipString() {
					return false
				}
				if d.ws(); d.i >= len(d.b) || d.b[d.i] != ':' {
					return false
				}
				d.i++
				d.ws()
			}
			if !d.skip() {
				return false
			}
			if more, ok := d.more(end); !more {
				return ok
			}
		}
	case c == 't':
		return d.lit("true")
	case c == 'f':
		return d.lit("false")
	case c == 'n':
		return d.lit("null")
	}
	_, ok := d.number()
	return ok
}

// skipString steps over a string literal, checking its escapes (invalid
// UTF-8 is valid JSON to encoding/json).
func (d *wireDecoder) skipString() bool {
	b := d.b
	for i := d.i + 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			d.i = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if i+1 >= len(b) {
				return false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+6 > len(b) {
					return false
				}
				for _, h := range b[i+2 : i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				i += 5
			default:
				return false
			}
		}
	}
	return false
}

// snapshotStates is the state type of each channel kind, as
// DecodeSnapshotState picks it.
var snapshotStates = map[string]reflect.Type{
	"root":          reflect.TypeFor[RootState](),
	"session":       reflect.TypeFor[SessionState](),
	"chat":          reflect.TypeFor[ChatState](),
	"terminal":      reflect.TypeFor[TerminalState](),
	"changeset":     reflect.TypeFor[ChangesetState](),
	"resourceWatch": reflect.TypeFor[ResourceWatchState](),
	"annotations":   reflect.TypeFor[AnnotationsState](),
	"canvas":        reflect.TypeFor[CanvasState](),
}

// snapshotState decodes the state at d.i as the type of resource's channel.
func (d *wireDecoder) snapshotState(resource string) (SnapshotStateVariant, bool) {
	if d.lit("null") {
		return nil, true
	}
	t, ok := snapshotStates[ChannelKind(resource)]
	if !ok {
		s := d.i
		if !d.skip() {
			return nil, false
		}
		return UnknownSnapshotState{Raw: append(json.RawMessage(nil), d.b[s:d.i]...)}, true
	}
	v := reflect.New(t).Elem()
	if !d.value(v, planOf(t)) {
		return nil, false
	}
	return v.Interface().(SnapshotStateVariant), true
}

// decodeSnapshotWire is Snapshot.UnmarshalJSON in one pass.
func decodeSnapshotWire(b []byte) (Snapshot, bool) {
	var s Snapshot
	d := wireDecoder{b: b}
	d.ws()
	ok := d.snapshot(&s) && d.ws() == len(b)
	return s, ok
}

// snapshot decodes the Snapshot object at d.i into the zero s. The state
// is decoded where it stands when the resource came before it (as hosts
// send it), or after the object otherwise.
func (d *wireDecoder) snapshot(s *Snapshot) bool {
	b := d.b
	if d.i >= len(b) || b[d.i] != '{' {
		return false
	}
	d.i++
	var haveResource, haveState, haveSeq bool
	stateAt := -1
	if d.ws(); d.i < len(b) && b[d.i] == '}' {
		d.i++
		return true
	}
	for {
		k, ok := d.key()
		if !ok || d.i >= len(b) {
			return false
		}
		switch string(k) {
		case "resource":
			if haveResource || b[d.i] != '"' {
				return false
			}
			haveResource = true
			if s.Resource, ok = d.str(); !ok {
				return false
			}
		case "fromSeq":
			if haveSeq {
				return false
			}
			haveSeq = true
			if !d.value(reflect.ValueOf(&s.FromSeq).Elem(), planOf(reflect.TypeFor[int64]())) {
				return false
			}
		case "state":
			if haveState {
				return false
			}
			haveState = true
			if !haveResource {
				stateAt = d.i
				if !d.skip() {
					return false
				}
				break
			}
			if s.State.Variant, ok = d.snapshotState(s.Resource); !ok {
				return false
			}
		default:
			switch strings.ToLower(string(k)) {
			case "resource", "state", "fromseq":
				return false
			}
			if !d.skip() {
				return false
			}
		}
		if d.ws(); d.i >= len(b) {
			return false
		}
		switch b[d.i] {
		case ',':
			d.i++
			d.ws()
			continue
		case '}':
			d.i++
		default:
			return false
		}
		break
	}
	if stateAt >= 0 {
		end := d.i
		d.i = stateAt
		var ok bool
		if s.State.Variant, ok = d.snapshotState(s.Resource); !ok {
			return false
		}
		d.i = end
	}
	return true
}
