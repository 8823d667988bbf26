package views

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/ahptui/ahptui/protocol"
)

// ChatTitle is the chat panel's title: the session's title and, when the
// session has several chats, which one is open.
func ChatTitle(sess protocol.SessionState, openChat string) string {
	t := SanitizeLine(sess.Title)
	if len(sess.Chats) > 1 {
		for i, c := range sess.Chats {
			if c.Resource == openChat {
				t += fmt.Sprintf(" · chat %d/%d %s", i+1, len(sess.Chats), SanitizeLine(c.Title))
			}
		}
	}
	return t
}

// HeaderSetting is one of the session's settings the chat header shows;
// Warn marks one that lets tool calls run without asking.
type HeaderSetting struct {
	Text string
	// Short, when set, stands for Text where the line is too narrow for
	// it (a folder's last name for its path).
	Short string
	Warn  bool
}

// RenderChatHeader is the line above the transcript: what the chat is
// doing, its queue, whether the view is scrolled away from the end, the
// session's settings (approval mode first) and the activity in the
// host's words. When the line is too narrow the activity goes first,
// then the later settings, so the approval mode is the last to go.
func RenderChatHeader(th Theme, chat protocol.ChatState, scrolled bool, settings []HeaderSetting, w int) string {
	label, st := chatActivity(th, chat.Status)
	parts := st.Render(label)
	// The queue and the scroll say what the keys do now: before the
	// settings, which narrow panels cut.
	if n := len(chat.QueuedMessages); n > 0 {
		parts += th.Muted.Render(fmt.Sprintf(" · %d queued", n))
	}
	if scrolled {
		parts += th.Muted.Render(" · scrolled (end to follow)")
	}
	if len(settings) > 0 {
		draw := func(s HeaderSetting, short bool) string {
			t := SanitizeLine(s.Text)
			if short && s.Short != "" {
				t = SanitizeLine(s.Short)
			}
			if t == "" {
				return ""
			}
			if s.Warn {
				return th.Warning.Bold(true).Render("⚠ " + t)
			}
			return th.Muted.Render(t)
		}
		sep := th.Muted.Render(" · ")
		line := func(n int, short bool) string {
			var sets []string
			for _, s := range settings[:n] {
				if d := draw(s, short); d != "" {
					sets = append(sets, d)
				}
			}
			return strings.Join(sets, sep)
		}
		// The whole line, then short forms, then fewer settings: the
		// approval mode, first, is the last to go.
		n, short := len(settings), false
		for n > 1 && lipgloss.Width(parts)+lipgloss.Width(line(n, short))+3 > w {
			if !short {
				short = true
				continue
			}
			n--
		}
		if l := line(n, short); l != "" {
			parts += sep + l
		}
	}
	if chat.Activity != nil && *chat.Activity != "" {
		parts += th.Muted.Render(" · " + SanitizeLine(*chat.Activity))
	}
	return Fit(parts, w)
}

func chatActivity(th Theme, st protocol.SessionStatus) (string, lipgloss.Style) {
	switch {
	case st.Has(protocol.SessionStatusInputNeeded):
		return "◆ needs input", th.Warning.Bold(true) // the session list's glyph
	case st.Has(protocol.SessionStatusError):
		return "✗ error", th.Error
	case st.Has(protocol.SessionStatusInProgress):
		return "◐ working", th.Info
	}
	return "· idle", th.Muted
}

// ChatPanel is what the chat panel shows, already drawn piece by piece.
type ChatPanel struct {
	Title   string
	Focused bool
	// Empty, when set, replaces everything below the title (no session
	// open, or the chat still opening).
	Empty []string
	// Header sits above the transcript, Prompts below it, then a rule and
	// the composer (ComposerHeight lines).
	Header, Prompts []string
	Transcript      string
	Composer        string
	ComposerHeight  int
}

// RenderChatPanel frames the chat panel exactly w×h cells.
func RenderChatPanel(th Theme, p ChatPanel, w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	if p.Empty != nil {
		return RenderPanel(th, p.Title, p.Empty, w, h, p.Focused)
	}
	inner, innerH := w-4, h-3
	var body []string
	body = append(body, p.Header...)
	body = append(body, strings.Split(p.Transcript, "\n")...)
	body = append(body, p.Prompts...)
	for len(body) < innerH-(p.ComposerHeight+1) {
		body = append(body, "")
	}
	body = append(body, th.Subtle.Render(strings.Repeat("─", inner)))
	body = append(body, strings.Split(p.Composer, "\n")...)
	return RenderPanel(th, p.Title, body, w, h, p.Focused)
}

// RenderEmptyChat is the transcript of a chat with no turns yet, width×
// height cells: what to type, in the agent's own words (its description,
// a host string: sanitized here), so a first message is not a guess.
func RenderEmptyChat(th Theme, writeKey, agent, description string, width, height int) string {
	if width < 1 || height < 1 {
		return ""
	}
	lines := wrapLines(th.Muted.Render("No messages yet: press "+writeKey+" to write the first one."), width)
	if d := strings.TrimSpace(SanitizeLine(description)); d != "" {
		if a := SanitizeLine(agent); a != "" {
			d = th.Title.Render(a) + ": " + d
		}
		lines = append(lines, wrapLines(d, width)...)
	}
	out := make([]string, height)
	for i := range out {
		if i < len(lines) {
			out[i] = Truncate(lines[i], width)
		}
	}
	return strings.Join(out, "\n")
}

// RenderChatPlaceholder is the chat panel's body with no session open.
func RenderChatPlaceholder(th Theme) []string {
	return []string{"", th.Muted.Render("Select a session and press enter to open it,"),
		th.Muted.Render("or press n for a new one.")}
}

// RenderReadOnlyComposer stands in for the composer of a chat the user
// cannot write to, as tall as the composer (height lines).
func RenderReadOnlyComposer(th Theme, height int) string {
	return th.Muted.Render("this chat is read-only") + strings.Repeat("\n", max(0, height-1))
}
