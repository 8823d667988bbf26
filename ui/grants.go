package ui

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// listProp is one list of an object setting made of lists of names, as
// VS Code's per-session permissions are ({allow: [tool…], deny: [tool…]},
// filled by "Allow in this Session" answers): the form lists each entry so
// the user can take one out.
type listProp struct{ id, title string }

// listsOf is the lists of an object setting whose every property is a
// list of strings, in the schema's order of ids; nil for any other.
func listsOf(typ string, props map[string]protocol.ConfigPropertySchema) []listProp {
	if typ != "object" || len(props) == 0 {
		return nil
	}
	var out []listProp
	for _, id := range slices.Sorted(maps.Keys(props)) {
		p := props[id]
		if p.Type != "array" || p.Items == nil || p.Items.Type != "string" {
			return nil
		}
		t := p.Title
		if t == "" {
			t = id
		}
		out = append(out, listProp{id: id, title: t})
	}
	return out
}

// listValues is v's lists by id; a value that is not an object of
// string lists gives ok false.
func listValues(v json.RawMessage) (map[string][]string, bool) {
	if len(v) == 0 || string(v) == "null" {
		return map[string][]string{}, true
	}
	var m map[string][]string
	if json.Unmarshal(v, &m) != nil {
		return nil, false
	}
	return m, true
}

// listsLabel is a lists setting's value in words: "Allowed tools: bash,
// write_file; Denied tools: none".
func (p configProp) listsLabel(v json.RawMessage) (string, bool) {
	m, ok := listValues(v)
	if !ok {
		return "", false
	}
	parts := make([]string, 0, len(p.lists))
	for _, l := range p.lists {
		items := "none"
		if len(m[l.id]) > 0 {
			items = strings.Join(m[l.id], ", ")
		}
		parts = append(parts, l.title+": "+items)
	}
	return strings.Join(parts, "; "), true
}

// listsRequest is the form on a lists setting: one multiple choice per
// list, every entry chosen; unchoosing one takes it out.
func (p configProp) listsRequest(v json.RawMessage) protocol.ChatInputRequest {
	m, _ := listValues(v)
	req := protocol.ChatInputRequest{ID: "setting:" + p.id}
	for _, l := range p.lists {
		title := l.title
		msg := fmt.Sprintf("%s: space takes an entry out or puts it back", title)
		if len(m[l.id]) == 0 {
			msg = title + ": none"
		}
		q := protocol.ChatInputMultiSelectQuestion{Kind: "multi-select", ID: l.id, Title: &title, Message: msg,
			Options: []protocol.ChatInputOption{}}
		for _, item := range m[l.id] {
			q.Options = append(q.Options, protocol.ChatInputOption{ID: item, Label: item})
		}
		req.Questions = append(req.Questions, protocol.NewChatInputQuestion(q))
	}
	return req
}

// listsDrafts is the form's starting state: every entry chosen.
func (p configProp) listsDrafts(v json.RawMessage) map[string]views.InputDraft {
	m, _ := listValues(v)
	out := map[string]views.InputDraft{}
	for _, l := range p.lists {
		chosen := map[string]bool{}
		for _, item := range m[l.id] {
			chosen[item] = true
		}
		out[l.id] = views.InputDraft{Chosen: chosen}
	}
	return out
}

// listsValue is the form's answer: old with each list cut to the entries
// still chosen (other members of old kept as they were).
func (p configProp) listsValue(old json.RawMessage, drafts map[string]views.InputDraft) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(old) > 0 && string(old) != "null" {
		if err := json.Unmarshal(old, &m); err != nil {
			return nil, fmt.Errorf("%q is not a list of entries: %w", views.SanitizeLine(p.title), err)
		}
	}
	was, _ := listValues(old)
	for _, l := range p.lists {
		kept := []string{}
		for _, item := range was[l.id] {
			if drafts[l.id].Chosen[item] {
				kept = append(kept, item)
			}
		}
		b, _ := json.Marshal(kept)
		m[l.id] = b
	}
	return json.Marshal(m)
}

// onlyRemoves reports whether v is old with entries taken out of its
// lists and nothing else changed: a grant revoked, never one added, so
// nothing more runs without asking.
func (p configProp) onlyRemoves(old, v json.RawMessage) bool {
	if len(p.lists) == 0 {
		return false
	}
	a, ok1 := listValues(old)
	b, ok2 := listValues(v)
	if !ok1 || !ok2 {
		return false
	}
	for id, items := range b {
		if !slices.ContainsFunc(p.lists, func(l listProp) bool { return l.id == id }) {
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
