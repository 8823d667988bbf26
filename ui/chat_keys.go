package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// keyUnselected makes the keys a blocker's card shows work when nothing is
// selected: they act on the newest blocker of the open chat (or the agent's
// sign-in prompt), and when nothing waits they say so instead of doing
// nothing. done reports that the key was fully handled here.
func (cp *chatPanel) keyUnselected(msg tea.KeyPressMsg) (cmd tea.Cmd, done bool) {
	if cp.sel.prompt && len(cp.signin.prompts) > 0 {
		return nil, false
	}
	if _, ok := cp.selectedItem(); ok {
		return nil, false
	}
	c, gr := cp.keys.Chat, cp.keys.Grant
	answers := key.Matches(msg, c.Approve) || key.Matches(msg, c.Deny) || key.Matches(msg, c.PickOption)
	// t and h act on the agent's sign-in prompt; one the user dismissed
	// comes back for them while the agent still needs it.
	byHand := key.Matches(msg, gr.Token) || key.Matches(msg, gr.GhToken)
	grants := key.Matches(msg, gr.Accept) || key.Matches(msg, gr.Decline) || key.Matches(msg, gr.CopyURL) ||
		byHand && (len(cp.signin.prompts) > 0 || cp.signin.reofferAgentSignIn())
	if !answers && !grants {
		return nil, false
	}
	if it, ok := cp.newestBlocker(); ok {
		cp.sel, cp.scroll, cp.pin = selOf(it), 0, true
		return nil, false
	}
	if grants && len(cp.signin.prompts) > 0 {
		cp.sel = chatSel{prompt: true}
		return nil, false
	}
	if grants {
		return reportInfo(errNothingTo.Error()), true
	}
	return nil, false
}

// keyComposer edits the draft; the root handles focus and reconnect keys
// before it gets here, as it does for every panel.
func (cp *chatPanel) keyComposer(msg tea.KeyPressMsg) tea.Cmd {
	k := cp.keys.Composer
	switch {
	case key.Matches(msg, k.Send), key.Matches(msg, k.Queue):
		return cp.submitComposer()
	case key.Matches(msg, k.Cancel):
		cmd := cp.dropEdit()
		cp.composer.Blur()
		cp.focus = focusChat
		return cmd
	case key.Matches(msg, cp.keys.Chat.CancelTurn):
		return cp.cancelTurn()
	case key.Matches(msg, k.Editor):
		return cp.editDraft()
	}
	var cmd tea.Cmd
	cp.composer, cmd = cp.composer.Update(msg)
	return cmd
}

func (cp *chatPanel) handleKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := cp.keys.Chat
	page := max(1, cp.transcriptHeight()-2)
	switch {
	case key.Matches(msg, k.ScrollUp):
		cp.scrollBy(1)
	case key.Matches(msg, k.ScrollDown):
		cp.scrollBy(-1)
	case key.Matches(msg, k.PageUp):
		cp.scrollBy(page)
	case key.Matches(msg, k.PageDown):
		cp.scrollBy(-page)
	case key.Matches(msg, k.Top):
		cp.scroll, cp.cardScroll = cp.maxScroll(), false
	case key.Matches(msg, k.Bottom):
		cp.scroll = 0
	case key.Matches(msg, k.FocusComposer):
		// An open session whose chat is still loading takes a message
		// already: what is typed stays in the composer (sendWhenOpen).
		if cp.openSession == "" {
			return reportError(errNoChat), true
		}
		cp.focus = focusComposer
		return cp.composer.Focus(), true
	case key.Matches(msg, k.NextToolCall):
		cp.moveItem(1)
	case key.Matches(msg, k.PrevToolCall):
		cp.moveItem(-1)
	case key.Matches(msg, k.Approve):
		return cp.approve(), true
	case key.Matches(msg, k.Deny):
		return cp.deny(), true
	case key.Matches(msg, k.PickOption):
		return cp.pickOption(int(msg.String()[0] - '0')), true
	case key.Matches(msg, k.ToggleExpand):
		return cp.toggleExpand(), true
	case key.Matches(msg, k.CancelTurn):
		return cp.cancelTurn(), true
	case key.Matches(msg, k.ResumeTurn):
		return cp.resumeTurn(), true
	case key.Matches(msg, k.NextBlocker):
		return cp.nextBlocker(), true
	case key.Matches(msg, k.Copy):
		return cp.copySelected(), true
	case key.Matches(msg, k.Subagent):
		it, ok := cp.selectedItem()
		if !ok || it.Kind != itemToolCall {
			return reportInfo("select a tool call that runs a subagent ([ and ]) to open its chat"), true
		}
		chat := it.Tool.SubagentChat()
		if chat == "" {
			return reportInfo("the selected tool call runs no subagent"), true
		}
		return cp.requestChat(chat), true
	case key.Matches(msg, k.Terminal):
		it, ok := cp.selectedItem()
		if !ok || it.Kind != itemToolCall {
			return reportInfo("select a tool call that runs in a terminal ([ and ]) to watch it"), true
		}
		ref, ok := it.Tool.TerminalRef()
		if !ok {
			return reportInfo("the selected tool call names no terminal"), true
		}
		return cp.requestTerminal(ref), true
	default:
		return nil, false
	}
	return nil, true
}

func (cp *chatPanel) keyGrant(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := cp.keys.Grant
	switch {
	case key.Matches(msg, k.Accept):
		return cp.acceptGrant(msg.String() == "enter"), true
	case key.Matches(msg, k.Decline):
		return cp.declineGrant(), true
	case key.Matches(msg, k.Cancel):
		return cp.cancelGrant(), true
	case key.Matches(msg, k.Token):
		return cp.signin.openToken(cp.grantResource(), cp.sel.prompt && len(cp.signin.prompts) > 0), true
	case key.Matches(msg, k.GhToken):
		return cp.signin.useGh(cp.grantResource()), true
	case key.Matches(msg, k.ShowURL):
		return cp.signin.showURLAlone(cp.selectedFlow()), true
	case key.Matches(msg, k.CopyURL):
		if g := cp.selectedFlow(); g != nil && g.url != "" {
			return tea.Batch(tea.SetClipboard(g.url), reportInfo(copyNote)), true
		}
		return reportError(errNoURL), true
	}
	return nil, false
}

// closeGrantPrompt is esc on a grant prompt no sign-in runs for: it puts
// the prompt away (nothing is selected), and says that it still waits and
// how to come back; esc never declines, which would fail the tool call.
func (cp *chatPanel) closeGrantPrompt() tea.Cmd {
	cp.sel = chatSel{}
	return reportInfo(fmt.Sprintf("sign-in prompt closed; it still waits: %s comes back to it, %s there declines",
		cp.keys.Chat.NextBlocker.Help().Key, cp.keys.Grant.Decline.Help().Key))
}
