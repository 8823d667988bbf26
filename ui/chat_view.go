package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

func (cp *chatPanel) transcriptHeight() int {
	return max(1, cp.layout.Chat.H-3-1-(cp.composerLines()+1)-len(cp.inputNeededLines(cp.layout.Chat)))
}

// composerLines is the composer's height: one line while it is empty, so a
// short terminal keeps its rows for the transcript, and composerHeight
// once there is a draft to see.
func (cp *chatPanel) composerLines() int {
	if cp.composer.Value() == "" {
		return 1
	}
	return composerHeight
}

func (cp *chatPanel) chatTitle() string {
	if !cp.hasSess {
		return "Chat"
	}
	return views.ChatTitle(cp.sess, cp.openChat)
}

// chatParts is the chat panel's layout inside rect: the lines above the
// transcript, the agent sign-in prompts below it, and the transcript's
// own width and height. Render draws with it and settle scrolls with it,
// so both agree on where a card lands.
func (cp *chatPanel) chatParts(rect views.Rect) (header, prompts []string, w, h int) {
	inner, innerH := rect.W-4, rect.H-3
	header = append(header, cp.chatHeader(inner))
	header = append(header, cp.signin.agentNeedLine(inner)...)
	header = append(header, cp.inputNeededLines(rect)...)
	prompts = cp.promptLines(inner)
	return header, prompts, inner, max(1, innerH-len(header)-len(prompts)-(cp.composerLines()+1))
}

func (cp *chatPanel) view(rect views.Rect) []string {
	p := views.ChatPanel{Title: cp.chatTitle(), Focused: cp.focus == focusChat || cp.focus == focusComposer,
		ComposerHeight: cp.composerLines()}
	switch {
	case cp.openSession == "":
		p.Title, p.Empty = "Chat", append(views.RenderChatPlaceholder(cp.th), cp.promptLines(rect.W-4)...)
	case !cp.hasChat && cp.focus == focusComposer:
		// Written before the chat is in: the composer keeps what is typed.
		p.Transcript = strings.Join(views.RenderChatOpening(cp.th), "\n")
		p.Composer = cp.composer.View()
	case !cp.hasChat:
		p.Empty = views.RenderChatOpening(cp.th)
	default:
		var tw, th int
		p.Header, p.Prompts, tw, th = cp.chatParts(rect)
		p.Transcript = cp.transcriptView(tw, th)
		p.Composer = cp.composerView()
	}
	return views.RenderChatPanel(cp.th, p, rect.W, rect.H)
}

func (cp *chatPanel) chatHeader(w int) string {
	return views.RenderChatHeader(cp.th, cp.chat, cp.scroll > 0, cp.headerSettings(), w)
}

func (cp *chatPanel) composerView() string {
	if cp.chat.Interactivity != nil && *cp.chat.Interactivity != protocol.ChatInteractivityFull {
		return views.RenderReadOnlyComposer(cp.th, cp.composerLines())
	}
	if cp.composer.Focused() {
		return cp.composer.View()
	}
	// Blurred, the composer shows no cursor and cannot change; the textarea
	// measures every cell when drawn, a sixth of a frame, so keys that act
	// on the transcript reuse its last drawing.
	key := fmt.Sprintf("%d|%d|%d|%d|%d|%d|%s", cp.composer.Width(), cp.composer.Height(), cp.composer.ScrollYOffset(),
		cp.composer.Line(), cp.composer.Column(), cp.themeGen, cp.composer.Value())
	if cp.composerMemo.key != key || len(cp.composerMemo.lines) != 1 {
		cp.composerMemo.key = key
		cp.composerMemo.lines = []string{cp.composer.View()}
	}
	return cp.composerMemo.lines[0]
}

// inputNeededLines lists the open session's blockers (at most a third of
// the chat), so a watcher sees everything that waits on them.
func (cp *chatPanel) inputNeededLines(chat views.Rect) []string {
	if !cp.hasSess || len(cp.sess.InputNeeded) == 0 {
		return nil
	}
	return views.RenderInputNeededLines(cp.th, cp.sess.InputNeeded, max(1, chat.W-4), max(2, chat.H/4),
		cp.keys.Chat.NextBlocker.Help().Key)
}

// transcriptOptions is the view state the transcript draws with: the
// selected card, what is expanded, and the grant prompt of every card that
// asks for access — an auth-required call, or a running call whose MCP
// server flipped to authRequired (the prompt sits on that call's card).
func (cp *chatPanel) transcriptOptions() views.TranscriptOptions {
	opts := views.TranscriptOptions{Expanded: cp.expanded, AutoApproval: autoRule(cp.sess, cp.hasSess)}
	if cp.hasChat {
		opts.ResumeTurn = views.ResumableTurn(cp.chat)
	}
	if cp.focus == focusChat {
		opts.SelectedToolCall, opts.SelectedTurn = cp.sel.item, cp.sel.turn
	}
	auth := cp.signin.waitingServers()
	if cp.focus == focusComposer {
		// The card's keys are transcript keys: say how to get there.
		reach := fmt.Sprintf("%s then %s to answer", cp.keys.Composer.Cancel.Help().Key, cp.keys.Chat.NextBlocker.Help().Key)
		for _, it := range cp.items() {
			if it.needsUser(auth) {
				if opts.Reach == nil {
					opts.Reach = map[string]string{}
				}
				opts.Reach[it.ID] = reach
			}
		}
	}
	for _, it := range cp.items() {
		if !it.Active || it.Kind != itemToolCall || !it.Tool.WaitsOnUser(func(id string) bool { return auth[id] }) {
			continue
		}
		if req := cp.itemGrantRequirement(it); req != nil {
			if opts.Grant == nil {
				opts.Grant = map[string]views.GrantView{}
			}
			opts.Grant[it.ID] = cp.signin.grantView(*req, itemChallenge(it))
		}
	}
	return opts
}

// transcript is the open chat's turn cache, made on first use. It keeps
// rendered turns between frames; filling it changes nothing View shows.
func (cp *chatPanel) transcript() *views.Transcript {
	if cp.tr == nil {
		cp.tr = views.NewTranscript(cp.th)
	}
	cp.tr.SetChat(cp.chat, views.SessionCustomizations(cp.sess))
	return cp.tr
}

func (cp *chatPanel) transcriptView(w, h int) string {
	if len(cp.chat.Turns) == 0 && cp.chat.ActiveTurn == nil {
		for _, a := range cp.root.Agents {
			if a.Provider == cp.sess.Provider {
				return views.RenderEmptyChat(cp.th, cp.keys.Chat.FocusComposer.Help().Key, a.DisplayName, a.Description, w, h)
			}
		}
		return views.RenderEmptyChat(cp.th, cp.keys.Chat.FocusComposer.Help().Key, "", "", w, h)
	}
	return cp.transcript().Render(w, h, cp.scroll, cp.transcriptOptions())
}

// settle scrolls the card the selection just moved to (pin) into view,
// in a chat panel laid out in rect. Update runs it; View only draws.
func (cp *chatPanel) settle(rect views.Rect) {
	if h := cp.composerLines(); cp.composer.Height() != h {
		cp.composer.SetHeight(h)
	}
	if !cp.pin || cp.openSession == "" || !cp.hasChat {
		return
	}
	cp.pin = false
	if cp.sel.item == "" {
		return
	}
	_, _, w, h := cp.chatParts(rect)
	// Counted from the end, so only the turns below the card render:
	// the first selection on a long chat does not draw the whole chat.
	if fromEnd, height, ok := cp.transcript().LocateToolCallFromEnd(w, cp.transcriptOptions(), cp.sel.item); ok {
		// The viewport shows lines [fromEnd of scroll+h, scroll) counted
		// from the end; scroll only when the card is not all inside.
		if fromEnd > cp.scroll+h || fromEnd-height < cp.scroll {
			cp.scroll = max(fromEnd-h, 0)
			cp.cardScroll = cp.scroll > 0
		}
	}
}

// toggleCard is e on a selected card: it opens or closes the card and
// the reasoning of its turn together (a card selected by ! or an answer
// must not hide the reasoning from e), and says what it did.
func (cp *chatPanel) toggleCard(it chatItem) tea.Cmd {
	open := !cp.expanded[it.ID]
	cp.expanded[it.ID] = open
	var parts []protocol.ResponsePart
	if at := cp.chat.ActiveTurn; at != nil && at.ID == it.TurnID {
		parts = at.ResponseParts
	}
	for _, t := range cp.chat.Turns {
		if t.ID == it.TurnID {
			parts = t.ResponseParts
		}
	}
	reasoning := 0
	for _, p := range parts {
		if r, ok := p.Variant.(protocol.ReasoningResponsePart); ok {
			cp.expanded[r.ID] = open
			reasoning++
		}
	}
	verb := "expanded"
	if !open {
		verb = "collapsed"
	}
	name := "the question"
	if it.Kind == itemToolCall {
		name = views.SanitizeLine(it.Tool.Name())
	}
	if reasoning == 0 {
		return reportInfo(fmt.Sprintf("%s %s; its turn has no reasoning", verb, name))
	}
	return reportInfo(fmt.Sprintf("%s %s and its turn's reasoning", verb, name))
}
