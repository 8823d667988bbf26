// Package privilege decides, once for the UI and the commands, what lets
// more run without asking: a setting's value that widens what runs
// unasked (Widens), and the approval option that allows just one call
// (OnceOption, WiderOption). It reads only what the host sent (the
// settings' schema, the options' ids and labels) and errs towards yes.
// Pure: no I/O, no state.
package privilege

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/ahptui/ahptui/protocol"
)

// Setting is what the decision reads of one session or host setting:
// its schema, as either schema type carries it.
type Setting struct {
	ID, Title, Description string
	Type                   string // the schema's type: string, number, integer, boolean, object, array
	Enum                   []json.RawMessage
	Default                json.RawMessage
	Labels, Descs          []string // enumLabels, enumDescriptions
	ReadOnly               bool
	// Mutable: a session setting that may change while the session runs
	// (sessionMutable); every host setting is.
	Mutable bool
	// Dynamic: enumDynamic, its values come from sessionConfigCompletions
	// (Enum only seeds them).
	Dynamic bool
	// Lists: an object made of lists of names, as VS Code's per-session
	// permissions are ({allow: [tool…], deny: [tool…]}); nil otherwise.
	Lists []List
}

// List is one list of a Lists setting.
type List struct{ ID, Title string }

// listsOf is the lists of an object setting whose every property is a
// list of strings, in the order of their ids; nil for any other.
func listsOf(typ string, props map[string]protocol.ConfigPropertySchema) []List {
	if typ != "object" || len(props) == 0 {
		return nil
	}
	var out []List
	for _, id := range slices.Sorted(maps.Keys(props)) {
		p := props[id]
		if p.Type != "array" || p.Items == nil || p.Items.Type != "string" {
			return nil
		}
		t := p.Title
		if t == "" {
			t = id
		}
		out = append(out, List{ID: id, Title: t})
	}
	return out
}

// ListValues is v's lists by id; a value that is not an object of
// string lists gives ok false.
func ListValues(v json.RawMessage) (map[string][]string, bool) {
	if len(v) == 0 || string(v) == "null" {
		return map[string][]string{}, true
	}
	var m map[string][]string
	if json.Unmarshal(v, &m) != nil {
		return nil, false
	}
	return m, true
}

// listsLabel is a Lists value in words: "Allowed tools: bash,
// write_file; Denied tools: none".
func (s Setting) listsLabel(v json.RawMessage) string {
	m, ok := ListValues(v)
	if !ok {
		return ""
	}
	parts := make([]string, 0, len(s.Lists))
	for _, l := range s.Lists {
		items := "none"
		if len(m[l.ID]) > 0 {
			items = strings.Join(m[l.ID], ", ")
		}
		parts = append(parts, l.Title+": "+items)
	}
	return strings.Join(parts, "; ")
}

// OnlyRemoves reports whether v is old with entries taken out of its
// lists and nothing else changed: a grant revoked, never one added, so
// nothing more runs without asking.
func OnlyRemoves(s Setting, old, v json.RawMessage) bool {
	if len(s.Lists) == 0 {
		return false
	}
	a, ok1 := ListValues(old)
	b, ok2 := ListValues(v)
	if !ok1 || !ok2 {
		return false
	}
	for id, items := range b {
		if !slices.ContainsFunc(s.Lists, func(l List) bool { return l.ID == id }) {
			return false
		}
		for _, it := range items {
			if !slices.Contains(a[id], it) {
				return false
			}
		}
	}
	return true
}

// SessionSettings are a session config schema's settings, by id.
func SessionSettings(s protocol.SessionConfigSchema) []Setting {
	out := make([]Setting, 0, len(s.Properties))
	for _, id := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[id]
		out = append(out, Setting{ID: id, Title: p.Title, Description: deref(p.Description), Type: p.Type, Default: p.Default,
			Enum: rawEnum(p.Enum), Labels: p.EnumLabels, Descs: p.EnumDescriptions,
			ReadOnly: p.ReadOnly != nil && *p.ReadOnly, Mutable: p.SessionMutable != nil && *p.SessionMutable,
			Dynamic: p.EnumDynamic != nil && *p.EnumDynamic, Lists: listsOf(p.Type, p.Properties)})
	}
	return out
}

// RootSettings are the host's (root) config schema's settings, by id.
func RootSettings(s protocol.ConfigSchema) []Setting {
	out := make([]Setting, 0, len(s.Properties))
	for _, id := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[id]
		out = append(out, Setting{ID: id, Title: p.Title, Description: deref(p.Description), Type: p.Type, Default: p.Default,
			Enum: rawEnum(p.Enum), Labels: p.EnumLabels, Descs: p.EnumDescriptions,
			ReadOnly: p.ReadOnly != nil && *p.ReadOnly, Mutable: true})
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func rawEnum(e []protocol.JSONPrimitive) []json.RawMessage {
	out := make([]json.RawMessage, len(e))
	for i, v := range e {
		out[i] = v.Raw
	}
	return out
}

// SameJSON reports whether a and b are the same JSON text, spaces aside.
func SameJSON(a, b json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
}

// IsBool: the setting is a boolean.
func (s Setting) IsBool() bool { return s.Type == "boolean" }

// Choices is the values the setting steps through: an enum's (not a
// dynamic one's, whose values are only seeds), or a boolean's two.
func (s Setting) Choices() []json.RawMessage {
	if s.Dynamic {
		return nil
	}
	if len(s.Enum) > 0 {
		return s.Enum
	}
	if s.IsBool() {
		return []json.RawMessage{json.RawMessage("false"), json.RawMessage("true")}
	}
	return nil
}

// Label is how value v of the setting reads: its enumLabel (and
// enumDescription), else the value itself; "(none)" for nothing.
func (s Setting) Label(v json.RawMessage) (label, desc string) {
	for i, e := range s.Enum {
		if SameJSON(e, v) {
			if i < len(s.Labels) && s.Labels[i] != "" {
				label = s.Labels[i]
			}
			if i < len(s.Descs) {
				desc = s.Descs[i]
			}
			break
		}
	}
	if label == "" && len(s.Lists) > 0 {
		label = s.listsLabel(v)
	}
	if label == "" {
		var str string
		if json.Unmarshal(v, &str) == nil {
			label = str
		} else {
			label = string(bytes.TrimSpace(v))
		}
		if label == "" {
			label = "(none)"
		}
	}
	return label, desc
}

// ValueIn is the setting's value in values, else its default: a host
// echoes only the values it resolved.
func (s Setting) ValueIn(values map[string]json.RawMessage) json.RawMessage {
	if v, ok := values[s.ID]; ok {
		return v
	}
	return s.Default
}

// broadWords mark a value (its id, label or description) that lets tool
// calls run without asking: what VS Code's agent host and its Claude and
// Codex agents call their broadest modes ("Allow all: Runs tool calls
// without asking", "Bypass Permissions", "Full Access", "Autopilot").
var broadWords = []string{"without asking", "allow all", "allowall", "autoapprove", "auto-approve", "auto approve",
	"bypass", "full access", "full-access", "danger", "autopilot", "yolo", "never ask", "don't ask", "dont ask",
	"dontask", "skip permission", "unrestricted", "instead of prompting", "auto-review"}

// approvalWords mark a setting about what runs without asking: an
// approval mode, permissions, a sandbox.
var approvalWords = []string{"approv", "permission", "sandbox", "allow", "trust", "confirm", "autopilot", "escalat", "bypass"}

// offWords are a sandbox's values that turn it off.
var offWords = []string{"off", "disable", "false", "none", "danger", "full"}

func containsAny(s string, words []string) bool {
	s = strings.ToLower(s)
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(s, w) })
}

// valueText is what a value says of itself: its JSON, label and
// description.
func (s Setting) valueText(v json.RawMessage) string {
	label, desc := s.Label(v)
	return string(v) + " " + label + " " + desc
}

// ApprovalLike reports whether the setting is about what runs without
// asking (an approval mode, permissions, a sandbox).
func (s Setting) ApprovalLike() bool {
	return containsAny(s.ID+" "+s.Title+" "+s.Description, approvalWords)
}

// SaysUnasked reports whether value v says of itself that it runs things
// without asking ("Allow all", "Bypass permissions"), whatever the
// setting it belongs to.
func (s Setting) SaysUnasked(v json.RawMessage) bool { return containsAny(s.valueText(v), broadWords) }

// Widens reports whether changing s from old to v lets more run without
// asking. It reads only the schema the host sent, and errs towards yes
// (a grant taken out of a list widens nothing):
// a value that says it runs things without asking; on an approval-like
// setting, a switch that turns approval off or a sandbox off, an enum
// value past both the old one and the default (hosts list approval modes
// from the narrowest, as VS Code's does), or any typed value.
func Widens(s Setting, old, v json.RawMessage) bool {
	if SameJSON(old, v) || OnlyRemoves(s, old, v) {
		return false
	}
	if s.SaysUnasked(v) {
		return true
	}
	if !s.ApprovalLike() {
		return false
	}
	sandbox := containsAny(s.ID+" "+s.Title, []string{"sandbox"})
	switch {
	case s.IsBool():
		on := SameJSON(v, json.RawMessage("true"))
		if sandbox || containsAny(s.ID+" "+s.Title, []string{"confirm", "require", "ask", "restrict", "strict"}) {
			return !on
		}
		return on
	case sandbox && containsAny(s.valueText(v), offWords):
		return true
	case len(s.Choices()) > 0:
		idx := func(x json.RawMessage) int {
			return slices.IndexFunc(s.Enum, func(e json.RawMessage) bool { return SameJSON(e, x) })
		}
		i := idx(v)
		return i < 0 || i > idx(old) && i > idx(s.Default)
	}
	return true
}

// words splits s into its lower-case words.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// broadOptionWords mark an approval option that reaches past this one
// call ("Allow in this Session", "Always allow", "Allow for the
// workspace").
var broadOptionWords = []string{"session", "always", "all", "workspace", "forever", "remember", "every", "future",
	"auto", "trust", "global", "project", "folder", "repository", "repo", "server", "tools", "chat"}

// OnceOption is the approval option that allows this one call: the one
// that says "once", else the only approving one that names no broader
// reach. ok is false when every approving option reaches further.
func OnceOption(opts []protocol.ConfirmationOption) (protocol.ConfirmationOption, bool) {
	for _, o := range opts {
		if o.Kind == protocol.ConfirmationOptionKindApprove && slices.Contains(words(o.ID+" "+o.Label), "once") {
			return o, true
		}
	}
	for _, o := range opts {
		if o.Kind == protocol.ConfirmationOptionKindApprove && !slices.ContainsFunc(words(o.ID+" "+o.Label), func(w string) bool {
			return slices.Contains(broadOptionWords, w)
		}) {
			return o, true
		}
	}
	return protocol.ConfirmationOption{}, false
}

// WiderOption reports whether picking o approves more than this call: an
// approving option other than the once one.
func WiderOption(o protocol.ConfirmationOption, opts []protocol.ConfirmationOption) bool {
	if o.Kind != protocol.ConfirmationOptionKindApprove {
		return false
	}
	once, ok := OnceOption(opts)
	return !ok || once.ID != o.ID
}
