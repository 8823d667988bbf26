package views

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/protocol"
)

// RenderInputNeeded lists a session's inputNeeded entries, one or two lines
// each, so a watcher sees every blocker in the session: which tool waits
// for approval or sign-in, which question waits for an answer. The selected
// entry is highlighted. Lines are at most width cells; the caller frames
// and clips the list.
func RenderInputNeeded(th Theme, entries []protocol.SessionInputRequest, selected int, width int) string {
	if width < 1 {
		return ""
	}
	if len(entries) == 0 {
		return th.Muted.Render(Truncate("Nothing is waiting for you.", width))
	}
	var lines []string
	for i, e := range entries {
		badge, what, detail, detailMD := inputNeededText(th, e)
		marker := "  "
		if i == selected {
			marker = "› "
		}
		plain := marker + badge.Plain() + "  " + what
		line := Truncate(plain, width)
		if i == selected {
			line = th.Selected.Render(line + strings.Repeat(" ", max(0, width-lipgloss.Width(line))))
		} else if strings.HasPrefix(line, marker+badge.Plain()) {
			line = marker + badge.String() + th.Text.Render(strings.TrimPrefix(line, marker+badge.Plain()))
		}
		lines = append(lines, line)
		if detail != "" {
			lines = append(lines, detailLine(th, detail, detailMD, width))
		}
	}
	return strings.Join(lines, "\n")
}

// detailLine draws a blocker's detail indented under it on one line. A
// message the host marked as markdown (a tool's "Write `CHANGELOG.md`")
// shows its inline formatting like the tool card does, not the raw
// backticks; what does not fit ends in "…".
func detailLine(th Theme, s string, markdown bool, width int) string {
	const indent = "    "
	if !markdown || width <= len(indent)+1 {
		return th.Muted.Render(Truncate(indent+SanitizeLine(s), width))
	}
	lines := wrapFragments(inlineFragments(th.Muted, SanitizeLine(s)), width-len(indent)-1)
	if len(lines) == 0 {
		return ""
	}
	out := indent + lines[0]
	if len(lines) > 1 {
		out += th.Muted.Render("…")
	}
	return out
}

// inputNeededText describes one blocker: its badge, what it asks, and a
// detail line (the tool's own message, the resource to sign in to) with
// whether the host marked that line as markdown.
func inputNeededText(th Theme, e protocol.SessionInputRequest) (Badge, string, string, bool) {
	switch v := e.Variant.(type) {
	case protocol.SessionChatInputRequest:
		what := "answer: " + firstNonEmpty(SanitizeLine(strOr(v.Request.Message)), questionPrompt(v.Request), "input requested")
		detail := ""
		if n := len(v.Request.Questions); n > 1 {
			detail = strconv.Itoa(n) + " questions"
		}
		return Badge{"◆", "question", th.Warning.Bold(true)}, what, detail, false
	case protocol.SessionToolConfirmationRequest:
		var t toolCall
		switch tc := v.ToolCall.Variant.(type) {
		case protocol.ToolCallPendingConfirmationState:
			t = normalizeToolCall(protocol.NewToolCallState(tc))
		case protocol.ToolCallPendingResultConfirmationState:
			t = normalizeToolCall(protocol.NewToolCallState(tc))
		default:
			t = toolCall{name: "tool", status: protocol.ToolCallStatusPendingConfirmation}
		}
		name := firstNonEmpty(SanitizeLine(t.name), "tool")
		if t.status == protocol.ToolCallStatusPendingResultConfirmation {
			return th.ToolCallBadge(t.status, false), "review the result of " + name, t.pastTense, t.pastTenseMD
		}
		return th.ToolCallBadge(protocol.ToolCallStatusPendingConfirmation, false), "approve " + name, t.invocation, t.invocationMD
	case protocol.SessionToolAuthenticationRequest:
		t := normalizeToolCall(protocol.ToolCallState{Variant: v.ToolCall})
		name := firstNonEmpty(SanitizeLine(t.name), "tool")
		res := SanitizeLine(v.ToolCall.Auth.Resource.Resource)
		var scopes []string
		for _, s := range v.ToolCall.Auth.RequiredScopes {
			scopes = append(scopes, SanitizeLine(s))
		}
		return th.ToolCallBadge(protocol.ToolCallStatusAuthRequired, false), "grant access for " + name,
			firstNonEmpty(res, "the server") + " " + reasonText(string(v.ToolCall.Auth.Reason), scopes), false
	case protocol.SessionToolClientExecutionRequest:
		t := normalizeToolCall(protocol.ToolCallState{Variant: v.ToolCall})
		return th.ToolCallBadge(protocol.ToolCallStatusRunning, false), "run client tool " + firstNonEmpty(SanitizeLine(t.name), "tool"),
			"for client " + SanitizeLine(v.ClientID), false
	}
	return th.unknownBadge(e.Kind()), "waiting for you (" + firstNonEmpty(SanitizeLine(e.Kind()), "unknown") + ")", "", false
}

func questionPrompt(r protocol.ChatInputRequest) string {
	if len(r.Questions) == 0 {
		return ""
	}
	q := normalizeQuestion(r.Questions[0])
	return firstNonEmpty(SanitizeLine(q.title), SanitizeLine(q.message))
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
