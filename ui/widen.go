package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/host/privilege"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// Who a confirmed value reaches, as the confirmation names it.
const (
	reachSession    = "this session"
	reachNewSession = "the new session"
	reachHost       = "every client of this host, VS Code windows included"
)

// setting is p as the shared decision (host/privilege) reads it.
func (p configProp) setting() privilege.Setting {
	return privilege.Setting{ID: p.id, Title: p.title, Description: p.description, Type: p.typ, Enum: p.enum, Default: p.def,
		Labels: p.labels, Descs: p.descs, ReadOnly: p.readOnly, Mutable: p.mutable, Dynamic: p.dynamic, Lists: p.lists}
}

// widens reports whether changing p from old to v lets more run without
// asking: host/privilege's one decision, which the commands take too.
func (p configProp) widens(old, v json.RawMessage) bool { return privilege.Widens(p.setting(), old, v) }

// autoRule is what the session's settings let run without asking, as a
// card says it ("Allow all in this session"), "" when none widens past
// its default.
func autoRule(s protocol.SessionState, has bool) string {
	if !has || s.Config == nil {
		return ""
	}
	var rules []string
	for _, p := range sessionProps(s.Config.Schema) {
		v := p.valueIn(s.Config.Values)
		if p.def != nil && p.widens(p.def, v) || p.def == nil && p.setting().SaysUnasked(v) {
			rules = append(rules, labelOf(p, v))
		}
	}
	if len(rules) == 0 {
		return ""
	}
	return strings.Join(rules, ", ") + " in this session"
}

// onceOption is the approval option that allows this one call
// (host/privilege's, shared with ahptui approve).
func onceOption(opts []protocol.ConfirmationOption) (protocol.ConfirmationOption, bool) {
	return privilege.OnceOption(opts)
}

// widerOption reports whether picking o approves more than this call.
func widerOption(o protocol.ConfirmationOption, opts []protocol.ConfirmationOption) bool {
	return privilege.WiderOption(o, opts)
}

// widenAsk is the confirmation of a value that lets more run without
// asking, or of a host-wide setting: what it does and whom it reaches. It
// is a dialog over everything; its highlight starts on "no", only enter
// on a highlighted "yes" confirms, and keys of its first second are
// dropped (guard), so no printable key, nor a word typed on, says yes.
type widenAsk struct {
	view  views.WidenView
	yes   func() tea.Cmd
	back  modal // the dialog it was opened over
	guard typingGuard
}

// askWiden opens the confirmation over what has the keys now.
func (a *app) askWiden(v views.WidenView, yes func() tea.Cmd) tea.Cmd {
	w := &widenAsk{view: v, yes: yes, back: a.modal}
	w.guard.arm(a.clock())
	a.widen, a.modal = w, modalWiden
	return w.guard.redraw(a.clock())
}

// settingView is the confirmation of setting p to v, reaching reach.
func settingView(p configProp, old, v json.RawMessage, reach string) views.WidenView {
	title := p.title
	if title == "" {
		title = p.id
	}
	label, desc := p.label(v)
	w := views.WidenView{Question: fmt.Sprintf("Set %s to “%s”?", title, label), Reach: reach}
	if desc != "" {
		w.Effect = append(w.Effect, label+": "+desc)
	}
	if p.widens(old, v) {
		w.Title = "Allow more without asking?"
		w.Effect = append(w.Effect, "Tool calls may then run without asking you first.")
	} else {
		w.Title = "Change a host setting?"
		w.Effect = append(w.Effect, "It changes how the host works, not only this window.")
	}
	return w
}

// optionView is the confirmation of approving call with option o.
func optionView(o protocol.ConfirmationOption, tool string) views.WidenView {
	return views.WidenView{Title: "Allow more without asking?",
		Question: fmt.Sprintf("“%s” for %s?", o.Label, tool),
		Effect:   []string{"This approves more than this one call: calls like it may then run without asking you first."},
		Reach:    reachSession}
}

// keyWiden answers the confirmation: ←/→ move between no and yes, enter
// chooses, esc says no. Every other key, and every key but esc in its
// first second, does nothing.
func (m *Model) keyWiden(msg tea.KeyPressMsg) tea.Cmd {
	w, k := m.widen, m.keys.Widen
	if w == nil {
		m.modal = modalNone
		return nil
	}
	if key.Matches(msg, k.Cancel) {
		return m.closeWiden(false)
	}
	if w.guard.holds(m.clock()) {
		return reportInfo("the confirmation just opened: keys typed in its first second are ignored")
	}
	switch {
	case key.Matches(msg, k.Move):
		w.view.OnYes = !w.view.OnYes
	case key.Matches(msg, k.Choose):
		return m.closeWiden(w.view.OnYes)
	default:
		return reportInfo(fmt.Sprintf("%s moves to Yes, %s chooses, %s keeps things as they are",
			k.Move.Help().Key, k.Choose.Help().Key, k.Cancel.Help().Key))
	}
	return nil
}

// closeWiden closes the confirmation, back to where it opened, and
// applies the value when yes.
func (m *Model) closeWiden(yes bool) tea.Cmd {
	w := m.widen
	m.widen, m.modal = nil, w.back
	if yes {
		return w.yes()
	}
	return reportInfo("not changed: " + views.SanitizeLine(w.view.Question))
}

// approvalLike reports whether p is about what runs without asking.
func (p configProp) approvalLike() bool { return p.setting().ApprovalLike() }
