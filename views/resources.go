package views

import (
	"fmt"
	"strings"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// CanvasRow is one canvas of the open chat: its title and owner once its
// channel's state arrived (else only its URI). Host text; the renderer
// sanitizes it.
type CanvasRow struct {
	URI, Title, Extension, Status string
	Loaded                        bool
}

// AnnotationRow is one annotation of the session: the file it is on,
// whether it is resolved, its entries and the first one's text.
type AnnotationRow struct {
	File     string
	Resolved bool
	Entries  int
	First    string
}

// ResourcesView is what the resources sheet (A) shows: the open chat's
// attachments that are references (Reads marks those read), the one
// being read (its text, error or loading), the chat's canvases and the
// session's annotations, counted by the session (HasAnnotations) and
// listed from their channel.
type ResourcesView struct {
	Attachments []protocol.MessageAttachment
	Sel         int
	Reads       map[int]bool
	// Reading is the label of the attachment read; Text its content,
	// Err why it is not shown, Loading while the host is asked. Top is
	// the first row of Text shown.
	Reading, Text, Err string
	Loading            bool
	Top                int

	Canvases                    []CanvasRow
	HasAnnotations              bool
	AnnotationCount, EntryCount int64
	Annotations                 []AnnotationRow
}

// ResourceTextRows is the text read, one row per screen line at width w
// (sanitized, wrapped), for the sheet and its scroll.
func ResourceTextRows(text string, w int) []string {
	if strings.IndexByte(text, 0) >= 0 {
		return []string{"Binary content: not shown as lines."}
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(Sanitize(text), "\n"), "\n") {
		wl := wrapLines(l, max(1, w))
		if len(wl) == 0 {
			wl = []string{""}
		}
		out = append(out, wl...)
	}
	return out
}

// RenderResources is the resources sheet (A): the open chat's reference
// attachments (label, kind, size; their content is read only when the
// user presses the read key, and then shown below, sanitized), the
// chat's canvases with their titles and the session's annotations with
// their counts. A section the chat or session has nothing for is left
// out; with nothing at all it says so.
func RenderResources(th Theme, k keymap.KeyMap, v ResourcesView, width, height int) string {
	width = max(width, 24)
	inner := width - 2
	rk := k.Resources
	var body []string
	selLine := -1
	if len(v.Attachments) > 0 {
		body = append(body, th.Title.Render(Truncate("Attachments · read only when you ask", inner)))
		for i, a := range v.Attachments {
			mark, style := "  ", th.Text.Render
			if i == v.Sel {
				mark, style = "▸ ", th.Selected.Render
				selLine = len(body)
			}
			line := "📎 " + SanitizeLine(attachmentLabel(a))
			if v.Reads[i] {
				line += " · read"
			}
			body = append(body, style(Truncate(mark+line, inner)))
		}
	}
	if len(v.Canvases) > 0 {
		body = append(gap(body), th.Title.Render(Truncate(fmt.Sprintf("Canvases (%d)", len(v.Canvases)), inner)))
		for _, c := range v.Canvases {
			if !c.Loaded {
				body = append(body, th.Muted.Render(Truncate("  "+SanitizeLine(c.URI)+" · loading…", inner)))
				continue
			}
			title := SanitizeLine(c.Title)
			if title == "" {
				title = "(untitled)"
			}
			facts := []string{title}
			for _, f := range []string{c.Extension, c.Status} {
				if f = SanitizeLine(f); f != "" {
					facts = append(facts, f)
				}
			}
			body = append(body, th.Text.Render(Truncate("  ▣ "+strings.Join(facts, " · "), inner)))
		}
	}
	if v.HasAnnotations {
		body = append(gap(body), th.Title.Render(Truncate(fmt.Sprintf("Annotations · %s, %s",
			countOf(v.AnnotationCount, "annotation"), countOf(v.EntryCount, "entry")), inner)))
		for _, a := range v.Annotations {
			state := "open"
			if a.Resolved {
				state = "resolved"
			}
			line := "  ✎ " + SanitizeLine(a.File) + " · " + state + " · " + countOf(int64(a.Entries), "entry")
			if f := SanitizeLine(a.First); f != "" {
				line += " · " + f
			}
			body = append(body, th.Text.Render(Truncate(line, inner)))
		}
	}
	if len(body) == 0 {
		body = wrapLines(th.Muted.Render("Nothing here: this chat has no attachments to read, no canvases, and the session no annotations."), inner)
	}
	pairs := []any{}
	if len(v.Attachments) > 0 {
		pairs = append(pairs, rk.Read, rk.Read.Help().Desc)
	}
	if v.Reading != "" {
		pairs = append(pairs, rk.PageDown, "scroll")
	}
	pairs = append(pairs, rk.Close, rk.Close.Help().Desc)
	foot := append([]string{""}, wrapLines(KeyHints(th, true, pairs...), inner)...)
	room := height - 2 - len(foot) // inside the frame, above the keys
	var shown []string
	if v.Reading != "" {
		shown = append(shown, "", th.Title.Render(Truncate("── "+SanitizeLine(v.Reading)+" ──", inner)))
		switch {
		case v.Loading:
			shown = append(shown, th.Muted.Render("reading…"))
		case v.Err != "":
			shown = append(shown, wrapLines(th.Error.Render(SanitizeLine(v.Err)), inner)...)
		default:
			// The text gets what the list leaves, the list at least a third.
			rows := ResourceTextRows(v.Text, inner)
			textRoom := max(3, room-min(len(body), max(3, room/3))-3)
			top := max(0, min(v.Top, len(rows)-textRoom))
			end := min(len(rows), top+textRoom)
			for _, r := range rows[top:end] {
				shown = append(shown, th.Text.Render(r))
			}
			if end < len(rows) || top > 0 {
				shown = append(shown, th.Muted.Render(fmt.Sprintf("rows %d–%d of %d", top+1, end, len(rows))))
			}
		}
	}
	body = append(scrollTo(th, body, selLine, room-len(shown)), shown...)
	body = append(body, foot...)
	return RenderDialog(th, "Attachments, canvases, annotations", body, width, min(height, len(body)+2))
}

// gap is body with a blank line after what it holds, none at the top.
func gap(body []string) []string {
	if len(body) == 0 {
		return body
	}
	return append(body, "")
}

func countOf(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(what, "y"))
	}
	return fmt.Sprintf("%d %ss", n, what)
}
