package keymap

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
)

// contextAbout says where each Context has the keyboard, for docs/keys.md.
var contextAbout = map[Context]string{
	ContextSessions:      "the session list has the focus",
	ContextChat:          "the chat has the focus (a card may be selected)",
	ContextChatGrant:     "a card or prompt that asks for a sign-in is selected in the chat",
	ContextComposer:      "typing a message",
	ContextMCP:           "the MCP panel has the focus",
	ContextInput:         "an input request's form (or a setting's) is open",
	ContextConfirm:       "a yes/no question is open (dispose, quit, use a saved sign-in here, …)",
	ContextSignIns:       "the saved sign-ins sheet (S) is open",
	ContextPaste:         "a field for a pasted token or redirect address is open",
	ContextNewSession:    "the new-session dialog is open",
	ContextSettings:      "the settings sheet (O) is open",
	ContextMessages:      "the message history (L) is open",
	ContextQueue:         "the pending-messages sheet (Q) is open",
	ContextChats:         "the chat switcher (c) is open",
	ContextInbox:         "the inbox (I) is open",
	ContextChanges:       "the changes view (C) is open",
	ContextDiff:          "a file's diff is open in the changes view",
	ContextResources:     "the attachments sheet (A) is open",
	ContextTerminals:     "the terminals list (T) is open",
	ContextTerminal:      "a terminal pane is open",
	ContextTerminalInput: "typing into a terminal: every key but the leave key is the terminal's",
	ContextWiden:         "the confirmation of something that lets more run without asking is open",
}

// Markdown is the key table of every context, generated from the key map
// so it cannot drift from what the keys do: docs/keys.md (a test keeps the
// file equal to it; go test ./keymap -run TestKeysDoc -update writes it).
func (k KeyMap) Markdown() string {
	var b strings.Builder
	b.WriteString("# ahptui's keys, by where the keyboard is\n\n")
	b.WriteString("Generated from `keymap` (`go test ./keymap -run TestKeysDoc -update`); do not edit by hand.\n")
	b.WriteString("Each table lists the keys of one context; `?` in the app shows the one you are in first.\n")
	for _, ctx := range Contexts {
		fmt.Fprintf(&b, "\n## %s\n\nWhen %s.\n\n| key | does |\n| --- | --- |\n", ctx, contextAbout[ctx])
		seen := map[key.Help]bool{}
		for _, bd := range k.bindings(ctx) {
			h := bd.Help()
			if h.Key == "" || seen[h] {
				continue
			}
			seen[h] = true
			fmt.Fprintf(&b, "| `%s` | %s |\n", strings.ReplaceAll(h.Key, "|", "\\|"), strings.ReplaceAll(h.Desc, "|", "\\|"))
		}
	}
	return b.String()
}
