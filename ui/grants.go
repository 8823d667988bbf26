package ui

import (
	"encoding/json"
	"fmt"

	"github.com/ahptui/ahptui/host/privilege"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// A Lists setting (host/privilege) is edited in a form that lists each
// entry, so the user can take one out: VS Code's per-session permissions
// ({allow: [tool…], deny: [tool…]}), filled by "Allow in this Session".

// listsRequest is the form on a lists setting: one multiple choice per
// list, every entry chosen; unchoosing one takes it out.
func (p configProp) listsRequest(v json.RawMessage) protocol.ChatInputRequest {
	m, _ := privilege.ListValues(v)
	req := protocol.ChatInputRequest{ID: "setting:" + p.id}
	for _, l := range p.lists {
		title := l.Title
		msg := fmt.Sprintf("%s: space takes an entry out or puts it back", title)
		if len(m[l.ID]) == 0 {
			msg = title + ": none"
		}
		q := protocol.ChatInputMultiSelectQuestion{Kind: "multi-select", ID: l.ID, Title: &title, Message: msg,
			Options: []protocol.ChatInputOption{}}
		for _, item := range m[l.ID] {
			q.Options = append(q.Options, protocol.ChatInputOption{ID: item, Label: item})
		}
		req.Questions = append(req.Questions, protocol.NewChatInputQuestion(q))
	}
	return req
}

// listsDrafts is the form's starting state: every entry chosen.
func (p configProp) listsDrafts(v json.RawMessage) map[string]views.InputDraft {
	m, _ := privilege.ListValues(v)
	out := map[string]views.InputDraft{}
	for _, l := range p.lists {
		chosen := map[string]bool{}
		for _, item := range m[l.ID] {
			chosen[item] = true
		}
		out[l.ID] = views.InputDraft{Chosen: chosen}
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
	was, _ := privilege.ListValues(old)
	for _, l := range p.lists {
		kept := []string{}
		for _, item := range was[l.ID] {
			if drafts[l.ID].Chosen[item] {
				kept = append(kept, item)
			}
		}
		b, _ := json.Marshal(kept)
		m[l.ID] = b
	}
	return json.Marshal(m)
}
