package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// Who a confirmed value reaches, as the confirmation names it.
const (
	reachSession    = "this session"
	reachNewSession = "the new session"
	reachHost       = "every client of this host, VS Code windows included"
)

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

// valueText is what a value of p says of itself: its JSON, label and
// description.
func (p configProp) valueText(v json.RawMessage) string {
	label, desc := p.label(v)
	return string(v) + " " + label + " " + desc
}

func (p configProp) about() string { return p.id + " " + p.title + " " + p.description }

// approvalLike reports whether p is about what runs without asking.
func (p configProp) approvalLike() bool { return containsAny(p.about(), approvalWords) }

// widens reports whether changing p from old to v lets more run without
// asking. It reads only the schema the host sent, and errs towards yes:
// a value that says it runs things without asking; on an approval-like
// setting, a switch that turns approval off or a sandbox off, an enum
// value past both the old one and the default (hosts list approval modes
// from the narrowest, as VS Code's does), or any typed value.
func (p configProp) widens(old, v json.RawMessage) bool {
	if sameJSON(old, v) {
		return false
	}
	if containsAny(p.valueText(v), broadWords) {
		return true
	}
	if !p.approvalLike() {
		return false
	}
	sandbox := containsAny(p.id+" "+p.title, []string{"sandbox"})
	switch {
	case p.isBool:
		on := sameJSON(v, json.RawMessage("true"))
		if sandbox || containsAny(p.id+" "+p.title, []string{"confirm", "require", "ask", "restrict", "strict"}) {
			return !on
		}
		return on
	case sandbox && containsAny(p.valueText(v), offWords):
		return true
	case len(p.choices()) > 0:
		idx := func(x json.RawMessage) int {
			return slices.IndexFunc(p.enum, func(e json.RawMessage) bool { return sameJSON(e, x) })
		}
		i := idx(v)
		return i < 0 || i > idx(old) && i > idx(p.def)
	}
	return true
}

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
		if p.def != nil && p.widens(p.def, v) || p.def == nil && containsAny(p.valueText(v), broadWords) {
			rules = append(rules, labelOf(p, v))
		}
	}
	if len(rules) == 0 {
		return ""
	}
	return strings.Join(rules, ", ") + " in this session"
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

// onceOption is the approval option that allows this one call: the one
// that says "once", else the only approving one that names no broader
// reach. ok is false when every approving option reaches further.
func onceOption(opts []protocol.ConfirmationOption) (protocol.ConfirmationOption, bool) {
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

// widerOption reports whether picking o approves more than this call: an
// approving option other than the once one.
func widerOption(o protocol.ConfirmationOption, opts []protocol.ConfirmationOption) bool {
	if o.Kind != protocol.ConfirmationOptionKindApprove {
		return false
	}
	once, ok := onceOption(opts)
	return !ok || once.ID != o.ID
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
