package keymap

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func TestDefaultKeyMapValidates(t *testing.T) {
	km := DefaultKeyMap()
	if err := km.Validate(); err != nil {
		t.Fatalf("DefaultKeyMap has conflicts:\n%v", err)
	}
	km.Composer.SetTurnRunning(true)
	if err := km.Validate(); err != nil {
		t.Fatalf("DefaultKeyMap with a running turn has conflicts:\n%v", err)
	}
	km.SetMultiHost(true)
	if err := km.Validate(); err != nil {
		t.Fatalf("DefaultKeyMap with several hosts has conflicts:\n%v", err)
	}
}

// TestHostKeysOnlyWithSeveralHosts: one host keeps its session list's keys
// as they were (no c, x or r there); several hosts make them live.
func TestHostKeysOnlyWithSeveralHosts(t *testing.T) {
	km := DefaultKeyMap()
	live := func() map[string]bool {
		out := map[string]bool{}
		for _, b := range km.Active(ContextSessions) {
			out[b.Help().Desc] = true
		}
		return out
	}
	for _, d := range []string{"connect host", "disconnect host", "retry host"} {
		if live()[d] {
			t.Errorf("%q is live with one host", d)
		}
	}
	km.SetMultiHost(true)
	for _, d := range []string{"connect host", "disconnect host", "retry host"} {
		if !live()[d] {
			t.Errorf("%q is not live with several hosts", d)
		}
	}
}

// Validate must actually catch the mistakes it exists for.
func TestValidateReportsConflicts(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*KeyMap)
		want   string
	}{
		{"duplicate in chat", func(k *KeyMap) { k.Chat.Deny.SetKeys("a") }, `chat: key "a" bound to both`},
		{"view vs global", func(k *KeyMap) { k.Sessions.New.SetKeys("q") }, `sessions: key "q" bound to both`},
		{"grant vs chat", func(k *KeyMap) { k.Grant.Decline.SetKeys("x") }, `chat+grant: key "x" bound to both`},
		{"printable in composer", func(k *KeyMap) { k.Composer.Cancel.SetKeys("q") }, `composer: printable key "q"`},
		{"space in input form", func(k *KeyMap) { k.Input.Submit.SetKeys("space") }, `input: printable key "space"`},
		{"send and queue both on", func(k *KeyMap) { k.Composer.Queue.SetEnabled(true) }, `composer: key "enter" bound to both`},
		{"missing help", func(k *KeyMap) { k.MCP.Stop = key.NewBinding(key.WithKeys("t")) }, `mcp: binding [t] has no help text`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			km := DefaultKeyMap()
			tc.mutate(&km)
			err := km.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// Every key name used must be exactly what bubbletea v2 reports for that
// key press, or the binding can never match ("pgdn" vs "pgdown").
func TestKeyNamesMatchBubbletea(t *testing.T) {
	presses := map[string]tea.KeyPressMsg{
		"up":        {Code: tea.KeyUp},
		"down":      {Code: tea.KeyDown},
		"left":      {Code: tea.KeyLeft},
		"right":     {Code: tea.KeyRight},
		"pgup":      {Code: tea.KeyPgUp},
		"pgdown":    {Code: tea.KeyPgDown},
		"home":      {Code: tea.KeyHome},
		"end":       {Code: tea.KeyEnd},
		"enter":     {Code: tea.KeyEnter},
		"esc":       {Code: tea.KeyEscape},
		"tab":       {Code: tea.KeyTab},
		"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
		"space":     {Code: tea.KeySpace, Text: " "},
		"alt+enter": {Code: tea.KeyEnter, Mod: tea.ModAlt},
		"ctrl+j":    {Code: 'j', Mod: tea.ModCtrl},
		"ctrl+c":    {Code: 'c', Mod: tea.ModCtrl},
		"ctrl+r":    {Code: 'r', Mod: tea.ModCtrl},
		"ctrl+l":    {Code: 'l', Mod: tea.ModCtrl},
		"ctrl+s":    {Code: 's', Mod: tea.ModCtrl},
		"ctrl+x":    {Code: 'x', Mod: tea.ModCtrl},
		"ctrl+g":    {Code: 'g', Mod: tea.ModCtrl},
		"ctrl+d":    {Code: 'd', Mod: tea.ModCtrl},
	}
	km := DefaultKeyMap()
	km.Composer.Queue.SetEnabled(true) // check its keys too
	km.SetMultiHost(true)
	for _, col := range km.FullHelp() {
		for _, b := range col {
			for _, k := range b.Keys() {
				msg, ok := presses[k]
				if !ok {
					if len([]rune(k)) != 1 {
						t.Errorf("key %q (%s) is not a key name this test knows bubbletea produces", k, b.Help().Desc)
						continue
					}
					r := []rune(k)[0]
					msg = tea.KeyPressMsg{Code: r, Text: k}
				}
				if got := msg.String(); got != k {
					t.Errorf("bubbletea names the press %q, binding says %q", got, k)
				}
				if !key.Matches(msg, b) {
					t.Errorf("binding %s does not match its own key %q", b.Help().Desc, k)
				}
			}
		}
	}
}

// In text entry a typed letter must match no binding.
func TestTextEntryContextsIgnoreLetters(t *testing.T) {
	km := DefaultKeyMap()
	for _, ctx := range []Context{ContextComposer, ContextInput, ContextTerminalInput} {
		for _, r := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!?/[]- " {
			msg := tea.KeyPressMsg{Code: r, Text: string(r)}
			if key.Matches(msg, km.Active(ctx)...) {
				t.Errorf("%s: typing %q triggers a binding", ctx, r)
			}
		}
	}
}

func TestHelpRendersPerContext(t *testing.T) {
	km := DefaultKeyMap()
	h := help.New()
	h.SetWidth(200)
	want := map[Context][]string{
		ContextSessions:  {"new session", "dispose", "quit"},
		ContextChat:      {"approve", "deny", "help"},
		ContextChatGrant: {"grant access", "decline"},
		ContextComposer:  {"send", "newline", "ctrl+c"},
		ContextMCP:       {"start/restart", "stop", "sign in", "enable/disable"},
		ContextInput:     {"next field", "submit", "decline"},
		ContextConfirm:   {"yes", "no"},
		// The dialog picks an agent; it has no "yes" (issue 14 item 9).
		ContextNewSession: {"enter", "create", "n/esc", "cancel"},
		ContextInbox:      {"open in place", "esc", "close"},
	}
	// Issue 14 item 9: keys that would do nothing are not offered — no
	// cancel turn on an idle chat, no cancel sign-in or copy URL before a
	// sign-in started.
	lies := map[Context][]string{
		ContextChat:       {"cancel turn"},
		ContextChatGrant:  {"cancel sign-in", "copy sign-in URL"},
		ContextNewSession: {"yes"},
	}
	for _, ctx := range Contexts {
		short := h.View(km.Help(ctx))
		for _, w := range want[ctx] {
			if !strings.Contains(short, w) {
				t.Errorf("%s short help %q lacks %q", ctx, short, w)
			}
		}
		for _, w := range lies[ctx] {
			if strings.Contains(short, w) {
				t.Errorf("%s short help %q offers %q, which does nothing there", ctx, short, w)
			}
		}
		h.ShowAll = true
		if full := h.View(km.Help(ctx)); len(full) <= len(short)/2 {
			t.Errorf("%s full help looks empty: %q", ctx, full)
		}
		h.ShowAll = false
	}
	// Composer help says what enter does now.
	if s := h.View(km.Help(ContextComposer)); !strings.Contains(s, "send") || strings.Contains(s, "queue") {
		t.Errorf("idle composer help = %q", s)
	}
	km.SetTurnRunning(true)
	if s := h.View(km.Help(ContextComposer)); !strings.Contains(s, "queue") || strings.Contains(s, "send") {
		t.Errorf("running composer help = %q", s)
	}
	if s := h.View(km.Help(ContextChat)); !strings.Contains(s, "cancel turn") {
		t.Errorf("chat help while a turn runs = %q, want cancel turn", s)
	}
	// The full reference lists every group.
	if n := len(km.FullHelp()); n != 20 {
		t.Errorf("FullHelp has %d columns, want 20 groups", n)
	}
}

func TestActiveMatchesExpectedBindings(t *testing.T) {
	km := DefaultKeyMap()
	km.SetTurnRunning(true)
	tests := []struct {
		ctx  Context
		msg  tea.KeyPressMsg
		want key.Binding
	}{
		{ContextChat, tea.KeyPressMsg{Code: 'y', Text: "y"}, km.Chat.Approve},
		{ContextChatGrant, tea.KeyPressMsg{Code: tea.KeyEnter}, km.Grant.Accept},
		{ContextConfirm, tea.KeyPressMsg{Code: 'y', Text: "y"}, km.Confirm.Yes},
		{ContextNewSession, tea.KeyPressMsg{Code: tea.KeyEnter}, km.NewSession.Create},
		{ContextNewSession, tea.KeyPressMsg{Code: tea.KeyEscape}, km.NewSession.Cancel},
		{ContextComposer, tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl}, km.Chat.CancelTurn},
		{ContextMCP, tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}, km.MCP.Toggle},
		{ContextSessions, tea.KeyPressMsg{Code: 'q', Text: "q"}, km.Global.Quit},
		{ContextChat, tea.KeyPressMsg{Code: 'r', Text: "r"}, km.Chat.ResumeTurn},
		{ContextChatGrant, tea.KeyPressMsg{Code: 'r', Text: "r"}, km.Chat.ResumeTurn},
		{ContextMCP, tea.KeyPressMsg{Code: 'b', Text: "b"}, km.MCP.Background},
		{ContextSessions, tea.KeyPressMsg{Code: 'I', Text: "I"}, km.Global.Inbox},
		{ContextChat, tea.KeyPressMsg{Code: 'I', Text: "I"}, km.Global.Inbox},
		{ContextInbox, tea.KeyPressMsg{Code: tea.KeyEnter}, km.Inbox.Open},
		{ContextInbox, tea.KeyPressMsg{Code: tea.KeyEscape}, km.Inbox.Close},
		{ContextChat, tea.KeyPressMsg{Code: 'C', Text: "C"}, km.Global.Changes},
		{ContextChanges, tea.KeyPressMsg{Code: 'v', Text: "v"}, km.Changes.Reviewed},
		{ContextChanges, tea.KeyPressMsg{Code: '2', Text: "2"}, km.Changes.Operation},
		{ContextDiff, tea.KeyPressMsg{Code: ']', Text: "]"}, km.Diff.NextHunk},
		{ContextDiff, tea.KeyPressMsg{Code: 'n', Text: "n"}, km.Diff.NextFile},
		{ContextDiff, tea.KeyPressMsg{Code: 'C', Text: "C"}, km.Global.Changes},
		{ContextChat, tea.KeyPressMsg{Code: 'T', Text: "T"}, km.Global.Terminals},
		{ContextChat, tea.KeyPressMsg{Code: 'w', Text: "w"}, km.Chat.Terminal},
		{ContextChatGrant, tea.KeyPressMsg{Code: 'w', Text: "w"}, km.Chat.Terminal},
		{ContextTerminals, tea.KeyPressMsg{Code: tea.KeyEnter}, km.Terminals.Open},
		{ContextTerminal, tea.KeyPressMsg{Code: 'G', Text: "G"}, km.Terminal.Bottom},
		{ContextTerminal, tea.KeyPressMsg{Code: 'g', Text: "g"}, km.Terminal.Top},
		{ContextTerminal, tea.KeyPressMsg{Code: 'i', Text: "i"}, km.Terminal.Input},
		{ContextTerminal, tea.KeyPressMsg{Code: tea.KeyEscape}, km.Terminal.Back},
		{ContextTerminalInput, tea.KeyPressMsg{Code: tea.KeyEscape}, km.Terminal.Leave},
	}
	for _, tc := range tests {
		var hit *key.Binding
		for _, b := range km.Active(tc.ctx) {
			if key.Matches(tc.msg, b) {
				hit = &b
				break
			}
		}
		if hit == nil || hit.Help() != tc.want.Help() {
			t.Errorf("%s: %q matched %v, want %q", tc.ctx, tc.msg.String(), hit, tc.want.Help().Desc)
		}
	}
}

// TestIdleCancelTurnHiddenNotDead: on an idle chat the help does not offer
// ctrl+x, but the key still reaches the ui, which says no turn is running
// rather than doing nothing.
func TestIdleCancelTurnHiddenNotDead(t *testing.T) {
	km := DefaultKeyMap()
	ctrlX := tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl}
	for _, ctx := range []Context{ContextChat, ContextComposer} {
		if !key.Matches(ctrlX, km.Active(ctx)...) {
			t.Errorf("%s: ctrl+x matches nothing on an idle chat", ctx)
		}
		for _, b := range km.Help(ctx).ShortHelp() {
			if b.Help() == km.Chat.CancelTurn.Help() {
				t.Errorf("%s: idle help offers %q", ctx, b.Help().Desc)
			}
		}
	}
}

// TestOfferedOnlyWhenUseful: resume turn and background start are live
// keys everywhere they belong, but the footer offers them only while the
// ui says they would do something.
func TestOfferedOnlyWhenUseful(t *testing.T) {
	km := DefaultKeyMap()
	offers := func(ctx Context, b key.Binding) bool {
		for _, s := range km.Help(ctx).ShortHelp() {
			if s.Help() == b.Help() {
				return true
			}
		}
		return false
	}
	r := tea.KeyPressMsg{Code: 'r', Text: "r"}
	bg := tea.KeyPressMsg{Code: 'b', Text: "b"}
	for _, step := range []struct {
		resumable, blocking bool
	}{{false, false}, {true, false}, {false, true}, {true, true}} {
		km.SetTurnResumable(step.resumable)
		km.SetBlockingSelected(step.blocking)
		if got := offers(ContextChat, km.Chat.ResumeTurn); got != step.resumable {
			t.Errorf("resumable=%v: chat footer offers resume = %v", step.resumable, got)
		}
		if got := offers(ContextMCP, km.MCP.Background); got != step.blocking {
			t.Errorf("blocking=%v: MCP footer offers background = %v", step.blocking, got)
		}
		if !key.Matches(r, km.Active(ContextChat)...) || !key.Matches(bg, km.Active(ContextMCP)...) {
			t.Errorf("%+v: a key went dead", step)
		}
	}
}
