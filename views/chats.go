package views

import (
	"fmt"
	"strings"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// ChatRow is one chat of a session as the chat switcher shows it. Title
// and Activity are host text; the renderer sanitizes them.
type ChatRow struct {
	Title    string
	Origin   string // "", "user", "fork", "sideChat", "tool" (a subagent), or the host's own kind
	Status   protocol.SessionStatus
	Activity string
	Waiting  int  // what waits on the user in it
	ReadOnly bool // its interactivity is not full
	Open     bool // the chat on screen
}

// originText says how a chat came to be.
func originText(kind string) string {
	switch kind {
	case "", "user":
		return ""
	case "fork":
		return "fork"
	case "sideChat":
		return "side chat"
	case "tool":
		return "subagent"
	}
	return SanitizeLine(kind)
}

// RenderChatSwitcher is the chat switcher (c): every chat of the open
// session with how it came to be, its status and what waits in it, the
// selected one highlighted; the keys to create a chat are offered only
// where the agent lets a client (can: new, fork, side), and ! (open what
// waits) only where something does.
func RenderChatSwitcher(th Theme, k keymap.KeyMap, rows []ChatRow, sel int, canNew, canFork, canSide bool, width, height int) string {
	width = max(width, 20)
	inner := width - 2
	var body []string
	selLine := -1
	for i, r := range rows {
		mark, style := "  ", th.Text.Render
		if i == sel {
			mark, style = "▸ ", th.Selected.Render
			selLine = len(body)
		}
		title := SanitizeLine(r.Title)
		if title == "" {
			title = "(untitled)"
		}
		if r.Open {
			title += " · on screen"
		}
		body = append(body, style(Truncate(mark+title, inner)))
		var facts []string
		if o := originText(r.Origin); o != "" {
			facts = append(facts, o)
		}
		b := SessionBadge(th, r.Status)
		facts = append(facts, b.Glyph+" "+b.Label)
		if r.Waiting > 0 {
			facts = append(facts, fmt.Sprintf("◆ %d waiting for you", r.Waiting))
		}
		if r.ReadOnly {
			facts = append(facts, "read-only")
		}
		if a := SanitizeLine(r.Activity); a != "" {
			facts = append(facts, a)
		}
		body = append(body, th.Muted.Render(Truncate("    "+strings.Join(facts, " · "), inner)))
	}
	ck := k.Chats
	pairs := []any{ck.Open, ck.Open.Help().Desc}
	for _, r := range rows {
		if r.Waiting > 0 {
			pairs = append(pairs, ck.Waiting, ck.Waiting.Help().Desc)
			break
		}
	}
	if canNew {
		pairs = append(pairs, ck.New, ck.New.Help().Desc)
	}
	if canFork {
		pairs = append(pairs, ck.Fork, ck.Fork.Help().Desc)
	}
	if canSide {
		pairs = append(pairs, ck.Side, ck.Side.Help().Desc)
	}
	pairs = append(pairs, ck.Close, ck.Close.Help().Desc)
	foot := []string{""}
	if !canNew {
		foot = append(foot, wrapLines(th.Muted.Render("This agent keeps one chat a session: it does not let a client create more."), inner)...)
	}
	foot = append(foot, wrapLines(KeyHints(th, true, pairs...), inner)...)
	body = append(scrollTo(th, body, selLine, height-2-len(foot)), foot...)
	return RenderDialog(th, "Chats", body, width, min(height, len(body)+2))
}
