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
// waits) only where something does. Only the rows that fit are drawn, so
// a session with 100k chats costs a frame what one with a screenful does.
func RenderChatSwitcher(th Theme, k keymap.KeyMap, rows []ChatRow, sel int, canNew, canFork, canSide bool, width, height int) string {
	width = max(width, 20)
	inner := width - 2
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

	// The lines shown, as scrollTo picks them from every row's two
	// lines, drawing only the rows they fall in.
	const perRow = 2
	total, room := perRow*len(rows), max(3, height-2-len(foot))
	first, end := 0, total
	if total > room {
		if selLine := perRow * sel; sel >= 0 && sel < len(rows) && selLine > room-5 {
			first = max(0, min(selLine-1, total-room))
		}
		end = first + room
	}
	lo, hi := first/perRow, min(len(rows), (end+perRow-1)/perRow)
	var body []string
	for i := lo; i < hi; i++ {
		body = append(body, chatRowLines(th, rows[i], i == sel, inner)...)
	}
	body = body[first-perRow*lo : end-perRow*lo]
	if first > 0 {
		body[0] = th.Muted.Render("  ↑ more")
	}
	if end < total {
		body[len(body)-1] = th.Muted.Render("  ↓ more")
	}
	body = append(body, foot...)
	return RenderDialog(th, "Chats", body, width, min(height, len(body)+2))
}

// chatRowLines draws one chat of the switcher: its title, then what is
// known of it.
func chatRowLines(th Theme, r ChatRow, selected bool, inner int) []string {
	mark, style := "  ", th.Text.Render
	if selected {
		mark, style = "▸ ", th.Selected.Render
	}
	title := SanitizeLine(r.Title)
	if title == "" {
		title = "(untitled)"
	}
	if r.Open {
		title += " · on screen"
	}
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
	return []string{style(Truncate(mark+title, inner)), th.Muted.Render(Truncate("    "+strings.Join(facts, " · "), inner))}
}
