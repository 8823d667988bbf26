package views

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ahptui/ahptui/protocol"
)

// A session as Markdown, for `ahptui show --markdown` and the UI's copy
// of a card or a message (one writer for both front-ends): every chat,
// each turn with its time, each tool call with its input and result.
// Host text is made inert (Sanitize: no escape sequences or control
// characters); what the host sent as Markdown stays Markdown, the rest
// is fenced or escaped.

// SessionMarkdown is the session sess (uri, its list summary if known,
// def its default chat) with chats, in Markdown.
func SessionMarkdown(sess protocol.SessionState, uri string, summary *protocol.SessionSummary, def string, chats []protocol.ChatState) string {
	var b strings.Builder
	writeSessionMarkdown(&b, sess, uri, summary, def, chats)
	return b.String()
}

// ToolCallMarkdown is one tool call in Markdown: its name, id and state,
// its input and its result.
func ToolCallMarkdown(tc protocol.ToolCallState) string {
	var b strings.Builder
	writeToolCall(&b, tc)
	return b.String()
}

// AgentMarkdown is what the agent wrote in a turn's parts: its Markdown
// parts, sanitized, one after another.
func AgentMarkdown(parts []protocol.ResponsePart) string {
	var out []string
	for _, p := range parts {
		if v, ok := p.Variant.(protocol.MarkdownResponsePart); ok {
			if t := strings.TrimRight(Sanitize(v.Content.String()), "\n"); t != "" {
				out = append(out, t)
			}
		}
	}
	return strings.Join(out, "\n\n")
}

// StatusWord is a session's or chat's status in one word, as the
// commands print it and the Markdown export states it.
func StatusWord(s protocol.SessionStatus) string {
	switch {
	case s.Has(protocol.SessionStatusInputNeeded):
		return "input-needed"
	case s.Has(protocol.SessionStatusError):
		return "error"
	case s.Has(protocol.SessionStatusInProgress):
		return "in-progress"
	}
	return "idle"
}

func writeSessionMarkdown(b *strings.Builder, sess protocol.SessionState, uri string, summary *protocol.SessionSummary, def string, chats []protocol.ChatState) {
	title := inline(sess.Title)
	if title == "" {
		title = "Session"
	}
	fmt.Fprintf(b, "# %s\n\n", title)
	fmt.Fprintf(b, "- Session: %s\n", code(uri))
	if sess.Provider != "" {
		fmt.Fprintf(b, "- Agent: %s\n", inline(sess.Provider))
	}
	if summary != nil {
		fmt.Fprintf(b, "- Status: %s\n", StatusWord(summary.Status))
		if summary.CreatedAt != "" {
			fmt.Fprintf(b, "- Created: %s\n", stamp(summary.CreatedAt))
		}
		if summary.ModifiedAt != "" {
			fmt.Fprintf(b, "- Modified: %s\n", stamp(summary.ModifiedAt))
		}
	}
	for _, d := range sess.WorkingDirectories {
		fmt.Fprintf(b, "- Working directory: %s\n", code(string(d)))
	}
	for _, ch := range chats {
		b.WriteString("\n")
		name := inline(ch.Title)
		if name == "" {
			name = "Chat"
		}
		fmt.Fprintf(b, "## %s\n\n", name)
		fmt.Fprintf(b, "- Chat: %s", code(ch.Resource))
		if ch.Resource == def {
			b.WriteString(" (default)")
		}
		b.WriteString("\n")
		if ch.Origin != nil {
			fmt.Fprintf(b, "- Origin: %s\n", inline(ch.Origin.Kind()))
		}
		fmt.Fprintf(b, "- Status: %s\n", StatusWord(ch.Status))
		if ch.ModifiedAt != "" {
			fmt.Fprintf(b, "- Modified: %s\n", stamp(ch.ModifiedAt))
		}
		if ch.TurnsNextCursor != nil {
			b.WriteString("- Older turns are not included: the host pages them and keeps them back.\n")
		}
		for i, t := range ch.Turns {
			started := ""
			if t.StartedAt != nil {
				started = *t.StartedAt
			}
			writeTurn(b, i+1, t.ID, string(t.State), started, t.Duration, t.Message, t.ResponseParts)
		}
		if t := ch.ActiveTurn; t != nil {
			writeTurn(b, len(ch.Turns)+1, t.ID, "in-progress", t.StartedAt, nil, t.Message, t.ResponseParts)
		}
		if len(ch.Turns) == 0 && ch.ActiveTurn == nil {
			b.WriteString("\n_No turns yet._\n")
		}
	}
}

func writeTurn(b *strings.Builder, n int, id, state, started string, duration *float64, msg protocol.Message, parts []protocol.ResponsePart) {
	fmt.Fprintf(b, "\n### Turn %d", n)
	if started != "" {
		fmt.Fprintf(b, " · %s", stamp(started))
	}
	if duration != nil && *duration >= 0 {
		fmt.Fprintf(b, " · %s", (time.Duration(*duration) * time.Millisecond).Round(time.Millisecond))
	}
	fmt.Fprintf(b, " · %s\n\n", inline(state))
	fmt.Fprintf(b, "Turn id: %s\n\n", code(id))
	b.WriteString("**User:**\n\n")
	quote(b, msg.Text)
	for _, p := range parts {
		b.WriteString("\n")
		switch v := p.Variant.(type) {
		case protocol.MarkdownResponsePart:
			b.WriteString("**Agent:**\n\n")
			b.WriteString(strings.TrimRight(Sanitize(v.Content.String()), "\n") + "\n")
		case protocol.ReasoningResponsePart:
			b.WriteString("<details><summary>Reasoning</summary>\n\n")
			fenced(b, "", v.Content.String())
			b.WriteString("\n</details>\n")
		case protocol.ErrorResponsePart:
			fmt.Fprintf(b, "> **Error:** %s\n", inline(v.Error.Message))
		case protocol.SystemNotificationResponsePart:
			fmt.Fprintf(b, "_%s_\n", inline(v.Content.Value))
		case protocol.InputRequestResponsePart:
			msg := ""
			if v.Request.Message != nil {
				msg = *v.Request.Message
			}
			fmt.Fprintf(b, "**Question:** %s", inline(msg))
			if v.Response != nil {
				fmt.Fprintf(b, " (%s)", inline(string(*v.Response)))
			}
			b.WriteString("\n")
		case protocol.ResourceResponsePart:
			fmt.Fprintf(b, "Resource: %s\n", code(v.URI))
		case protocol.ToolCallResponsePart:
			writeToolCall(b, v.ToolCall)
		default:
			fmt.Fprintf(b, "_(%s)_\n", inline(p.Kind()))
		}
	}
}

// toolCallFields is what a tool call's JSON says of its input and
// result, whatever its state.
type toolCallFields struct {
	ToolInput         json.RawMessage            `json:"toolInput"`
	InvocationMessage *protocol.StringOrMarkdown `json:"invocationMessage"`
	PastTenseMessage  *protocol.StringOrMarkdown `json:"pastTenseMessage"`
	Content           []json.RawMessage          `json:"content"`
	Success           *bool                      `json:"success"`
	Error             *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func writeToolCall(b *strings.Builder, tc protocol.ToolCallState) {
	fmt.Fprintf(b, "#### Tool: %s · %s · %s\n\n", inline(tc.Name()), code(tc.ID()), inline(tc.Status()))
	var f toolCallFields
	if raw, err := json.Marshal(tc); err == nil {
		_ = json.Unmarshal(raw, &f)
	}
	if s := tc.McpServer(); s != "" {
		fmt.Fprintf(b, "- MCP server: %s\n", code(s))
	}
	if f.InvocationMessage != nil && f.InvocationMessage.String() != "" {
		fmt.Fprintf(b, "- Call: %s\n", textOrMarkdown(*f.InvocationMessage))
	}
	if f.PastTenseMessage != nil && f.PastTenseMessage.String() != "" {
		fmt.Fprintf(b, "- Done: %s\n", textOrMarkdown(*f.PastTenseMessage))
	}
	if f.Error != nil && f.Error.Message != "" {
		fmt.Fprintf(b, "- Error: %s\n", inline(f.Error.Message))
	}
	if len(f.ToolInput) > 0 && string(f.ToolInput) != "null" {
		b.WriteString("\nInput:\n\n")
		fenced(b, "json", indentJSON(f.ToolInput))
	}
	if len(f.Content) > 0 {
		b.WriteString("\nResult:\n\n")
	}
	for _, raw := range f.Content {
		var rc protocol.ToolResultContent
		if json.Unmarshal(raw, &rc) != nil {
			fenced(b, "json", indentJSON(raw))
			continue
		}
		switch v := rc.Variant.(type) {
		case protocol.ToolResultTextContent:
			fenced(b, "", v.Text)
		case protocol.ToolResultTerminalContent:
			fmt.Fprintf(b, "- Terminal %s (%s)", code(string(v.Resource)), inline(v.Title))
			if v.Result != nil && v.Result.ExitCode != nil {
				fmt.Fprintf(b, ", exit code %d", *v.Result.ExitCode)
			}
			b.WriteString("\n")
		case protocol.ToolResultFileEditContent:
			var side []string
			if v.Before != nil {
				side = append(side, "from "+code(string(v.Before.URI)))
			}
			if v.After != nil {
				side = append(side, "to "+code(string(v.After.URI)))
			}
			fmt.Fprintf(b, "- File edit %s\n", strings.Join(side, " "))
		case protocol.ToolResultResourceContent:
			fmt.Fprintf(b, "- Resource %s\n", code(string(v.URI)))
		case protocol.ToolResultEmbeddedResourceContent:
			fmt.Fprintf(b, "- Embedded %s, %d bytes (base64)\n", inline(v.ContentType), len(v.Data))
		case protocol.ToolResultSubagentContent:
			fenced(b, "json", indentJSON(raw))
		default:
			fenced(b, "json", indentJSON(raw))
		}
	}
}

// textOrMarkdown is a one-line message: the host's Markdown kept as
// Markdown (sanitized), plain text escaped.
func textOrMarkdown(s protocol.StringOrMarkdown) string {
	if s.Markdown {
		return SanitizeLine(s.Value)
	}
	return inline(s.Value)
}

// stamp is an ISO 8601 time in UTC, or the host's text when it is not
// one.
func stamp(s string) string {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC().Format(time.RFC3339)
	}
	return inline(s)
}

// inline is host text for one line of Markdown: sanitized, with the
// characters that would start Markdown syntax escaped.
func inline(s string) string {
	s = SanitizeLine(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>#|", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// code is s as inline code, its fence longer than any backtick run in it.
func code(s string) string {
	s = SanitizeLine(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// fenced writes text as a fenced block whose fence no line of it closes.
func fenced(b *strings.Builder, lang, text string) {
	text = strings.TrimRight(Sanitize(text), "\n")
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	fmt.Fprintf(b, "%s%s\n%s\n%s\n", fence, lang, text, fence)
}

// quote writes text as a block quote.
func quote(b *strings.Builder, text string) {
	for _, l := range strings.Split(strings.TrimRight(Sanitize(text), "\n"), "\n") {
		b.WriteString(strings.TrimRight("> "+l, " ") + "\n")
	}
}

func longestRun(s string, c rune) int {
	best, n := 0, 0
	for _, r := range s {
		if r == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// indentJSON is raw indented; a string that holds JSON (hosts send a
// tool's input as its JSON text) is that JSON, indented.
func indentJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	if str, ok := v.(string); ok {
		var inner any
		if json.Unmarshal([]byte(str), &inner) != nil {
			return str
		}
		v = inner
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(out)
}
