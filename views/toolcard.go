package views

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// CardContext is what a tool-call card needs beyond the tool call itself.
type CardContext struct {
	// ServerName is the MCP server that contributes the tool ("" when the
	// tool is not an MCP tool or the server is unknown). ServerNameFor
	// resolves it from the session's customizations.
	ServerName string
	Selected   bool // the card has the transcript's selection: highlighted frame, key hints
	Expanded   bool // show the whole input and result instead of their first lines
	// Grant, when set, is the grant prompt in its current phase: on an
	// auth-required call it replaces the plain "needs sign-in" summary; on
	// a running call it says the call waits because its MCP server needs
	// sign-in (the server flipped to authRequired) and asks for it there.
	// Other states ignore it.
	Grant *GrantView
	// Reach, when set on a card that is not selected, replaces its key
	// hints: the keys do not work from where the user is, and Reach says
	// how to get there ("esc then ! to answer").
	Reach string
	// AutoApproval is what in the session's settings runs calls without
	// asking ("Allow all in this session"), "" when nothing does: a call
	// the host ran with no confirmation says so on its card.
	AutoApproval string
}

// Collapsed card sections show this many lines and say how many are hidden.
const (
	collapsedInputLines  = 3
	collapsedResultLines = 6
)

// toolCall is the fields every ToolCallState variant may carry, in one
// shape, so the card is drawn by one function.
type toolCall struct {
	id, status        string
	name, intention   string
	invocation        string
	input             string             // streaming: the partial input so far
	finalInput        protocol.ToolInput // after streaming: inline or a ContentRef, decoded when drawn
	contributorMCP    string             // customizationId of an MCP contributor
	success           bool
	hasResult         bool
	pastTense         string
	content           []protocol.ToolResultContent
	errMsg, errCode   string
	cancelReason      string
	cancelMessage     string
	confirmationTitle string
	options           []protocol.ConfirmationOption
	selectedOption    string
	confirmed         protocol.ToolCallConfirmationReason // how the call was let run
	risk              string
	auth              *protocol.McpAuthRequirement
	// Which of the host's messages are markdown (StringOrMarkdown).
	invocationMD, pastTenseMD, titleMD, cancelMD, riskMD bool
}

func optLabel(o *protocol.ConfirmationOption) string {
	if o == nil {
		return ""
	}
	return o.Label
}

func strOr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// toolInputShown is a tool call's final input as the card shows it: the
// inline text, or for a ContentRef (1.0) where it lives and how big it is.
// The referenced input is never fetched here: it may change until the call
// leaves pending-confirmation (DELTA §7.5), so the card shows the reference,
// not a copy that could go stale under the user's approval.
func toolInputShown(in protocol.ToolInput) string {
	if text, ok := protocol.ToolInputText(in); ok {
		return text
	}
	ref, ok := protocol.ToolInputRef(in)
	if !ok {
		return ""
	}
	return "[input at " + contentRefText(ref) + "]"
}

// contentRefText is "uri, type, N bytes" for a ContentRef, the fields the
// host gave (host text: the caller sanitizes).
func contentRefText(ref protocol.ContentRef) string {
	s := ref.URI
	if ref.ContentType != nil {
		s += ", " + *ref.ContentType
	}
	if ref.SizeHint != nil {
		s += fmt.Sprintf(", %d bytes", *ref.SizeHint)
	}
	return s
}

func resultErr(e *protocol.ToolCallResultError) (string, string) {
	if e == nil {
		return "", ""
	}
	return e.Message, strOr(e.Code)
}

// normalizeToolCall flattens a ToolCallState variant. An unknown variant
// (a newer host) keeps its status so the card still says what it is.
func normalizeToolCall(tc protocol.ToolCallState) toolCall {
	var t toolCall
	switch v := tc.Variant.(type) {
	case protocol.ToolCallStreamingState:
		t = toolCall{intention: strOr(v.Intention), input: strOr(v.PartialInput)}
		if v.InvocationMessage != nil {
			t.invocation, t.invocationMD = v.InvocationMessage.Value, v.InvocationMessage.Markdown
		}
	case protocol.ToolCallPendingConfirmationState:
		t = toolCall{intention: strOr(v.Intention), invocation: v.InvocationMessage.Value, finalInput: v.ToolInput, options: v.Options}
		if v.ConfirmationTitle != nil {
			t.confirmationTitle, t.titleMD = v.ConfirmationTitle.Value, v.ConfirmationTitle.Markdown
		}
		if v.RiskAssessment != nil {
			if c, ok := v.RiskAssessment.Variant.(protocol.ToolCallRiskAssessmentCompleteState); ok {
				t.risk = fmt.Sprintf("risk assessment: %s (safety %.0f%%)", c.Reason.Value, c.Safety*100)
				t.riskMD = c.Reason.Markdown
			} else {
				t.risk = "risk assessment: in progress…"
			}
		}
		t.invocationMD = v.InvocationMessage.Markdown
	case protocol.ToolCallRunningState:
		t = toolCall{intention: strOr(v.Intention), invocation: v.InvocationMessage.Value, finalInput: v.ToolInput, content: v.Content, selectedOption: optLabel(v.SelectedOption),
			confirmed: v.Confirmed}
		t.invocationMD = v.InvocationMessage.Markdown
	case protocol.ToolCallAuthRequiredState:
		auth := v.Auth
		t = toolCall{intention: strOr(v.Intention), invocation: v.InvocationMessage.Value, finalInput: v.ToolInput, content: v.Content, auth: &auth, confirmed: v.Confirmed}
		t.invocationMD = v.InvocationMessage.Markdown
	case protocol.ToolCallPendingResultConfirmationState:
		t = toolCall{intention: strOr(v.Intention), invocation: v.InvocationMessage.Value, finalInput: v.ToolInput, hasResult: true, success: v.Success,
			pastTense: v.PastTenseMessage.Value, content: v.Content, confirmed: v.Confirmed}
		t.errMsg, t.errCode = resultErr(v.Error)
		t.invocationMD = v.InvocationMessage.Markdown
		t.pastTenseMD = v.PastTenseMessage.Markdown
	case protocol.ToolCallCompletedState:
		t = toolCall{intention: strOr(v.Intention), invocation: v.InvocationMessage.Value, finalInput: v.ToolInput, hasResult: true, success: v.Success,
			pastTense: v.PastTenseMessage.Value, content: v.Content, selectedOption: optLabel(v.SelectedOption), confirmed: v.Confirmed}
		t.errMsg, t.errCode = resultErr(v.Error)
		t.invocationMD = v.InvocationMessage.Markdown
		t.pastTenseMD = v.PastTenseMessage.Markdown
	case protocol.ToolCallCancelledState:
		t = toolCall{intention: strOr(v.Intention), invocation: v.InvocationMessage.Value, finalInput: v.ToolInput, cancelReason: string(v.Reason),
			selectedOption: optLabel(v.SelectedOption)}
		if v.ReasonMessage != nil {
			t.cancelMessage, t.cancelMD = v.ReasonMessage.Value, v.ReasonMessage.Markdown
		}
		t.invocationMD = v.InvocationMessage.Markdown
	}
	// The fields every state shares come from protocol's accessors, the
	// one derivation the key handling in ui uses too.
	t.id, t.status, t.contributorMCP = tc.ID(), tc.Status(), tc.McpServer()
	t.name = firstNonEmpty(tc.Name(), "tool call")
	return t
}

// RenderToolCard draws one tool call as a framed card exactly width cells
// wide: a header with the state badge, the tool's name and its MCP server;
// what it is doing; its input (collapsed to a few lines unless Expanded);
// its result or why it failed or was cancelled; and, when the card is
// selected and the call waits for the user, the keys that answer it.
func RenderToolCard(th Theme, tc protocol.ToolCallState, ctx CardContext, width int) string {
	if width < 10 {
		width = 10
	}
	frame := th.Panel.Padding(0, 1)
	if ctx.Selected {
		frame = th.PanelFocused.Padding(0, 1)
	}
	inner := width - frame.GetHorizontalFrameSize()
	lines := toolCardLines(th, normalizeToolCall(tc), ctx, inner)
	return frame.Width(width).Render(strings.Join(lines, "\n"))
}

// toolCardLines draws a card's inside in four steps: the header, what the
// tool is doing, its outcome so far, and what it asks of the user.
func toolCardLines(th Theme, t toolCall, ctx CardContext, inner int) []string {
	c := &card{th: th, ctx: ctx, inner: inner}
	c.header(t)
	c.doing(t)
	c.outcome(t)
	c.ask(t)
	return c.lines
}

// card accumulates the lines of one tool-call card inner cells wide.
type card struct {
	th    Theme
	ctx   CardContext
	inner int
	lines []string
}

// add wraps s in the card's width, every line in style.
func (c *card) add(style lipgloss.Style, s string) {
	for _, l := range wrapLines(s, c.inner) {
		c.lines = append(c.lines, style.Render(l))
	}
}

// msg adds one of the host's messages, markdown when it says so.
func (c *card) msg(style lipgloss.Style, s string, markdown bool) {
	c.lines = append(c.lines, messageLines(style, s, markdown, c.inner)...)
}

// hints adds the key hints of a selected card.
func (c *card) hints(bindings ...key.Binding) {
	c.lines = append(c.lines, wrapLines(hintLine(c.th, bindings...), c.inner)...)
}

// reach adds how to get to an unselected card's keys, when known.
func (c *card) reach() {
	if c.ctx.Reach != "" {
		c.lines = append(c.lines, reachLines(c.th, c.ctx.Reach, c.inner)...)
	}
}

// block adds a labelled, indented body (input, result) of at most max
// lines unless the card is expanded, saying how many lines are hidden.
func (c *card) block(label, body string, max int) {
	body = strings.TrimRight(Sanitize(body), "\n ")
	if body == "" {
		return
	}
	c.add(c.th.Subtle, label)
	var bl []string
	for _, l := range strings.Split(body, "\n") {
		w := wrapLines(l, c.inner-2)
		if len(w) == 0 {
			w = []string{""}
		}
		bl = append(bl, w...)
	}
	shown := bl
	if !c.ctx.Expanded && len(bl) > max {
		shown = bl[:max]
	}
	for _, l := range shown {
		c.lines = append(c.lines, "  "+c.th.Text.Render(l))
	}
	if hidden := len(bl) - len(shown); hidden > 0 {
		more := fmt.Sprintf("  … %d more line%s", hidden, plural(hidden))
		if c.ctx.Selected {
			more += " (" + hintKeys.Chat.ToggleExpand.Help().Key + " expand)"
		}
		c.lines = append(c.lines, c.th.Muted.Render(Truncate(more, c.inner)))
	}
}

// header is the badge, the tool's name and its server. The badge goes
// first so state is the first thing read in a column of cards.
func (c *card) header(t toolCall) {
	th := c.th
	badge := th.ToolCallBadge(t.status, t.hasResult && !t.success)
	name := SanitizeLine(t.name)
	if name == "" {
		name = "tool"
	}
	head := badge.String() + "  " + th.Title.Render(name)
	// A server named like its tool ("Deploy · Deploy") says nothing twice.
	if s := SanitizeLine(c.ctx.ServerName); s != "" && !strings.EqualFold(strings.TrimSpace(s), strings.TrimSpace(name)) {
		head += th.Muted.Render(" · " + s)
	}
	c.lines = append(c.lines, wrapLines(head, c.inner)...)
}

// doing is what the tool is doing, in the host's words for this state,
// and its input.
func (c *card) doing(t toolCall) {
	th := c.th
	switch {
	case t.hasResult && strings.TrimSpace(t.pastTense) != "":
		c.msg(th.Text, t.pastTense, t.pastTenseMD)
	case strings.TrimSpace(t.invocation) != "":
		c.msg(th.Text, t.invocation, t.invocationMD)
	}
	if s := SanitizeLine(t.intention); strings.TrimSpace(s) != "" {
		c.add(th.Muted, "why: "+s)
	}
	if s := SanitizeLine(t.confirmationTitle); strings.TrimSpace(s) != "" {
		c.msg(th.Warning, t.confirmationTitle, t.titleMD)
	}
	if t.risk != "" {
		c.msg(th.Muted, t.risk, t.riskMD)
	}
	input := t.input
	if t.finalInput != nil {
		// Decoded here, not in normalizeToolCall: cache keys normalize
		// every card on every frame and need none of it.
		input = toolInputShown(t.finalInput)
	}
	c.block("input", input, collapsedInputLines)
}

// outcome is the result so far: an error, the output, why the call was
// cancelled, the option the user chose.
func (c *card) outcome(t toolCall) {
	th := c.th
	switch t.status {
	case protocol.ToolCallStatusCompleted, protocol.ToolCallStatusPendingResultConfirmation, protocol.ToolCallStatusRunning, protocol.ToolCallStatusAuthRequired:
		if t.hasResult && !t.success {
			msg := SanitizeLine(t.errMsg)
			if msg == "" {
				msg = "the tool reported a failure"
			}
			if code := SanitizeLine(t.errCode); code != "" {
				msg += " (" + code + ")"
			}
			c.add(th.Error, "error: "+msg)
		}
		if out := resultText(t.content); out != "" {
			label := "result"
			if !t.hasResult {
				label = "output so far"
			}
			c.block(label, out, collapsedResultLines)
		}
	case protocol.ToolCallStatusCancelled:
		why := cancelText(t.cancelReason)
		if m := SanitizeLine(t.cancelMessage); strings.TrimSpace(m) != "" {
			c.msg(th.Muted, why+": "+t.cancelMessage, t.cancelMD)
		} else {
			c.add(th.Muted, why)
		}
	}
	if t.selectedOption != "" {
		c.add(th.Subtle, "chosen: "+SanitizeLine(t.selectedOption))
	}
	c.unasked(t)
}

// unasked says that a call ran without asking the user because of a rule:
// the host says a setting confirmed it, or it needed no confirmation in a
// session whose settings run calls without asking.
func (c *card) unasked(t toolCall) {
	rule := SanitizeLine(c.ctx.AutoApproval)
	switch {
	case t.confirmed == protocol.ToolCallConfirmationReasonSetting && rule == "":
		rule = "approved by a setting"
	case t.confirmed == protocol.ToolCallConfirmationReasonSetting, t.confirmed == protocol.ToolCallConfirmationReasonNotNeeded && rule != "":
	default:
		return
	}
	verb := "ran without asking: "
	if t.status == protocol.ToolCallStatusRunning || t.status == protocol.ToolCallStatusAuthRequired {
		verb = "runs without asking: "
	}
	c.add(c.th.Warning, verb+rule)
}

// ask is the part that asks something of the user: the options and keys
// of a confirmation, or the sign-in the call waits for.
func (c *card) ask(t toolCall) {
	th, ctx := c.th, c.ctx
	switch t.status {
	case protocol.ToolCallStatusPendingConfirmation:
		if len(t.options) > 0 {
			// One a line, numbered by position: the number keys pick by
			// it (keymap Chat.PickOption), and only 1-9 have a key.
			for i, o := range t.options {
				n := "  "
				if i < 9 {
					n = strconv.Itoa(i+1) + " "
				}
				lead := "options: "
				if i > 0 {
					lead = "         "
				}
				c.add(th.Muted, lead+n+SanitizeLine(o.Label))
			}
		}
		switch {
		case ctx.Selected && len(t.options) > 0:
			// a/y allow this one call; a broader option goes by number
			// and asks first.
			pick := hintKeys.Chat.PickOption
			pick.SetHelp(pick.Help().Key, "pick option (broader ones ask first)")
			c.hints(hintKeys.Chat.Approve, pick, hintKeys.Chat.Deny)
		case ctx.Selected:
			c.hints(hintKeys.Chat.Approve, hintKeys.Chat.Deny)
		default:
			c.reach()
		}
	case protocol.ToolCallStatusPendingResultConfirmation:
		if !ctx.Selected {
			c.reach()
			return
		}
		c.hints(hintKeys.Chat.Answers(keymap.AnswerResult))
	case protocol.ToolCallStatusRunning:
		// The call's MCP server flipped to authRequired: the call waits on
		// the same sign-in an auth-required call asks for, so it asks for it
		// in the same place, on its own card.
		if ctx.Grant != nil {
			c.add(th.Warning, "⚠ waiting: its MCP server needs sign-in")
			c.lines = append(c.lines, grantBox(th, ctx.grant(), c.inner)...)
			if ctx.Selected && ctx.Grant.Phase == GrantOffered {
				c.add(th.Muted, "declining cancels the call")
			}
		}
	case protocol.ToolCallStatusAuthRequired:
		switch {
		case ctx.Grant != nil:
			c.lines = append(c.lines, grantBox(th, ctx.grant(), c.inner)...)
		case t.auth != nil:
			res := SanitizeLine(t.auth.Resource.Resource)
			if res == "" {
				res = "the server"
			}
			var clean []string
			for _, s := range t.auth.RequiredScopes {
				clean = append(clean, SanitizeLine(s))
			}
			c.add(th.Warning, res+" "+reasonText(string(t.auth.Reason), clean))
			if ctx.Selected {
				c.hints(hintKeys.Grant.Accept, hintKeys.Grant.Decline)
			} else {
				c.reach()
			}
		}
	}
}

// grant is the card's grant prompt, told how to reach its keys when they
// do not work from where the user is.
func (ctx CardContext) grant() GrantView {
	g := *ctx.Grant
	if !ctx.Selected && ctx.Reach != "" {
		g.Reach = ctx.Reach
	}
	return g
}

// reachLines say how to get to a card's keys from where the user is.
func reachLines(th Theme, reach string, inner int) []string {
	var out []string
	for _, l := range wrapLines("→ "+SanitizeLine(reach), inner) {
		out = append(out, th.Warning.Render(l))
	}
	return out
}

// grantBox is the grant prompt framed inside a card, inner cells wide.
func grantBox(th Theme, g GrantView, inner int) []string {
	box := th.GrantBox
	gl := grantLines(th, g, inner-box.GetHorizontalFrameSize())
	return strings.Split(box.Width(inner).Render(strings.Join(gl, "\n")), "\n")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func cancelText(reason string) string {
	switch reason {
	case "denied":
		return "denied by the user"
	case "skipped":
		return "skipped"
	case "result-denied":
		return "result rejected by the user"
	case "":
		return protocol.ToolCallStatusCancelled
	}
	return "cancelled (" + SanitizeLine(reason) + ")"
}

// resultText is the readable part of a tool result: text content in full,
// other content kinds as a one-line summary. A terminal's output preview
// is shown only when no text content carries the output already: VS
// Code's agent host sends a shell's output both ways.
func resultText(content []protocol.ToolResultContent) string {
	var parts []string
	hasText := slices.ContainsFunc(content, func(c protocol.ToolResultContent) bool {
		t, ok := c.Variant.(protocol.ToolResultTextContent)
		return ok && strings.TrimSpace(t.Text) != ""
	})
	for _, c := range content {
		switch v := c.Variant.(type) {
		case protocol.ToolResultTextContent:
			parts = append(parts, v.Text)
		case protocol.ToolResultEmbeddedResourceContent:
			parts = append(parts, fmt.Sprintf("[embedded %s, %d bytes base64]", v.ContentType, len(v.Data)))
		case protocol.ToolResultResourceContent:
			parts = append(parts, "[resource "+v.URI+"]")
		case protocol.ToolResultFileEditContent:
			s := "[file edit"
			if v.Diff != nil && (v.Diff.Added != nil || v.Diff.Removed != nil) {
				// The host's count, said so, with the changes view's
				// signs (issue 36: "+2 -0" beside a list's "+2 −1").
				if v.Diff.Added != nil {
					s += fmt.Sprintf(" +%d", *v.Diff.Added)
				}
				if v.Diff.Removed != nil {
					s += fmt.Sprintf(" −%d", *v.Diff.Removed)
				}
				s += " (the host's count)"
			}
			parts = append(parts, s+"]")
		case protocol.ToolResultTerminalContent:
			// 1.0 folds the finished command (0.6 terminalComplete) into
			// the terminal content's result.
			name := v.Title
			if strings.TrimSpace(name) == "" {
				name = v.Resource // the reference is the label then
			}
			if v.Result == nil {
				parts = append(parts, "[terminal "+name+"]")
				break
			}
			s := "[terminal " + name + " finished"
			if v.Result.ExitCode != nil {
				s += fmt.Sprintf(", exit code %d", *v.Result.ExitCode)
			}
			if v.Result.Truncated != nil && *v.Result.Truncated {
				s += ", output cut short"
			}
			s += "]"
			if v.Result.Preview != nil && !hasText {
				s += "\n" + *v.Result.Preview
			}
			parts = append(parts, s)
		case protocol.ToolResultSubagentContent:
			s := "[subagent " + v.Title
			if v.Description != nil && *v.Description != "" {
				s += ": " + *v.Description
			}
			parts = append(parts, s+" · its own chat, "+hintKeys.Chat.Subagent.Help().Key+" opens it]")
		default:
			parts = append(parts, "["+c.Kind()+" content]")
		}
	}
	return strings.Join(parts, "\n")
}

// ServerNameFor returns the name of the MCP server a tool call comes from,
// looked up by its contributor's customizationId among the session's
// customizations (top level and inside plugins and directories; pass
// SessionCustomizations(sess) to include the plugins of active clients); ""
// when the tool is not an MCP tool or the server is not listed.
func ServerNameFor(tc protocol.ToolCallState, customizations []protocol.Customization) string {
	id := normalizeToolCall(tc).contributorMCP
	if id == "" {
		return ""
	}
	for _, r := range MCPServerRows(customizations) {
		if r.ID == id {
			return r.Name
		}
	}
	return ""
}

// UnansweredText says why a question (an input request) of a turn that
// ended without an answer to it is closed: its card no longer waits.
func UnansweredText(ended protocol.TurnState) string {
	switch ended {
	case protocol.TurnStateCancelled:
		return "not answered: the turn was cancelled"
	case protocol.TurnStateError:
		return "not answered: the turn failed"
	}
	return "not answered: the turn ended"
}
