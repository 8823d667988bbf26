package ui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// maxAttachmentRead caps what reading an attachment fetches: it is read
// to be looked at in a sheet, and the host names its size.
const maxAttachmentRead = 256 << 10

// resourceSheet is the resources sheet (A, issue 23): the open chat's
// message attachments that are ContentRefs, each read (client.ReadContent,
// bounded) only when the user presses the read key and then shown
// sanitized; the chat's canvases with their titles and the session's
// annotations with their counts. Canvas and annotations channels are
// subscribed only while the sheet is open.
type resourceSheet struct {
	*app
	open bool
	sel  int
	subs []string // channels subscribed for the open sheet
	// reading is the attachment read (its index), -1 for none; reads
	// marks those read since the sheet opened.
	reading     int
	reads       map[int]bool
	text, err   string
	loading     bool
	top         int
	readURI     string
	chatAtOpen  string
	canvasState map[string]protocol.CanvasState
	notes       *protocol.AnnotationsState
}

// contentReader and stateReader are the parts of the client the sheet
// needs beyond Client; a client without them lists what it can.
type contentReader interface {
	ReadContent(ctx context.Context, ref protocol.ContentRef, maxBytes int) (string, error)
}

type stateReader interface {
	State(channel string) (any, bool)
}

// resourceMsg is an answer for the resources sheet.
type resourceMsg interface{ forResources() }

type attachmentReadMsg struct {
	uri, text string
	err       error
}

type resourceSubscribedMsg struct{ channel string }

func (attachmentReadMsg) forResources()     {}
func (resourceSubscribedMsg) forResources() {}

// attachments is every ContentRef attachment of the open chat's messages.
func (r *resourceSheet) attachments() []protocol.MessageAttachment {
	if !r.hasChat {
		return nil
	}
	var out []protocol.MessageAttachment
	add := func(m protocol.Message) {
		for _, a := range m.Attachments {
			if _, ok := a.Variant.(protocol.MessageResourceAttachment); ok {
				out = append(out, a)
			}
		}
	}
	for _, t := range r.app.chat.Turns {
		add(t.Message)
	}
	if r.app.chat.ActiveTurn != nil {
		add(r.app.chat.ActiveTurn.Message)
	}
	return out
}

// channels is what the sheet watches: the chat's canvases and the
// session's annotations.
func (r *resourceSheet) channels() []string {
	var out []string
	if r.hasChat {
		for _, c := range r.app.chat.Canvases {
			out = append(out, string(c.Resource))
		}
	}
	if r.hasSess && r.sess.Annotations != nil {
		out = append(out, string(r.sess.Annotations.Resource))
	}
	return out
}

func (r *resourceSheet) toggle() tea.Cmd {
	if r.open {
		return r.close()
	}
	if !r.hasChat {
		return reportInfo("open a chat first: the sheet lists its attachments, canvases and annotations")
	}
	r.open, r.sel, r.reading, r.reads, r.chatAtOpen = true, 0, -1, map[int]bool{}, r.openChat
	r.text, r.err, r.loading, r.top, r.readURI = "", "", false, 0, ""
	r.canvasState, r.notes = map[string]protocol.CanvasState{}, nil
	if r.client == nil {
		return nil
	}
	r.subs = r.channels()
	c, ctx := r.client, r.ctx
	var cmds []tea.Cmd
	for _, ch := range r.subs {
		cmds = append(cmds, func() tea.Msg {
			if err := c.Subscribe(ctx, ch); err != nil {
				return nil // listed by its URI, as before its state came
			}
			return resourceSubscribedMsg{channel: ch}
		})
	}
	return tea.Batch(cmds...)
}

// close leaves the sheet and unsubscribes what it watched.
func (r *resourceSheet) close() tea.Cmd {
	r.open = false
	subs, c, ctx := r.subs, r.client, r.ctx
	r.subs = nil
	if len(subs) == 0 || c == nil {
		return nil
	}
	return func() tea.Msg {
		for _, ch := range subs {
			_ = c.Unsubscribe(ctx, ch)
		}
		return nil
	}
}

func (r *resourceSheet) onMsg(msg resourceMsg) tea.Cmd {
	switch msg := msg.(type) {
	case resourceSubscribedMsg:
		r.refresh(msg.channel)
	case attachmentReadMsg:
		if !r.open || msg.uri != r.readURI {
			return nil
		}
		r.loading, r.text, r.err = false, msg.text, ""
		if msg.err != nil {
			r.err = fmt.Sprintf("could not read it: %v", msg.err)
		}
	}
	return nil
}

// refresh takes a watched channel's new state.
func (r *resourceSheet) refresh(channel string) {
	if !r.open {
		return
	}
	sr, ok := r.client.(stateReader)
	if !ok || r.client == nil {
		return
	}
	for _, ch := range r.subs {
		if ch != channel {
			continue
		}
		st, ok := sr.State(channel)
		if !ok {
			return
		}
		switch s := st.(type) {
		case protocol.CanvasState:
			r.canvasState[channel] = s
		case protocol.AnnotationsState:
			r.notes = &s
		}
	}
}

// read fetches the selected attachment: the one place its content is
// asked for.
func (r *resourceSheet) read(atts []protocol.MessageAttachment) tea.Cmd {
	if r.sel >= len(atts) {
		return nil
	}
	a := atts[r.sel].Variant.(protocol.MessageResourceAttachment)
	cr, ok := r.client.(contentReader)
	if !ok || r.client == nil {
		return reportError(errNoClient)
	}
	r.reading, r.reads[r.sel], r.readURI = r.sel, true, string(a.URI)
	r.loading, r.text, r.err, r.top = true, "", "", 0
	ref := protocol.ContentRef{URI: a.URI, SizeHint: a.SizeHint, ContentType: a.ContentType, Nonce: a.Nonce}
	ctx := r.ctx
	return func() tea.Msg {
		text, err := cr.ReadContent(ctx, ref, maxAttachmentRead)
		return attachmentReadMsg{uri: string(ref.URI), text: text, err: err}
	}
}

func (r *resourceSheet) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := r.keys.Resources
	atts := r.attachments()
	r.sel = clampCursor(r.sel, len(atts))
	page := max(1, r.height/2)
	switch {
	case key.Matches(msg, k.Close):
		return r.close()
	case cursorKey(msg, k.Up, k.Down):
		r.sel = moveCursor(msg, k.Up, r.sel, len(atts))
	case key.Matches(msg, k.Read):
		return r.read(atts)
	case key.Matches(msg, k.PageDown):
		rows := len(views.ResourceTextRows(r.text, r.sheetWidth()-2))
		r.top = max(0, min(r.top+page, rows-page))
	case key.Matches(msg, k.PageUp):
		r.top = max(0, r.top-page)
	}
	return nil
}

func (r *resourceSheet) sheetWidth() int { return min(r.width, 100) }

func (r *resourceSheet) view() string {
	atts := r.attachments()
	v := views.ResourcesView{Attachments: atts, Sel: clampCursor(r.sel, len(atts)), Reads: r.reads,
		Text: r.text, Err: r.err, Loading: r.loading, Top: r.top}
	if r.reading >= 0 && r.reading < len(atts) {
		v.Reading = atts[r.reading].Variant.(protocol.MessageResourceAttachment).Label
	}
	if r.hasChat {
		for _, c := range r.app.chat.Canvases {
			row := views.CanvasRow{URI: string(c.Resource)}
			if st, ok := r.canvasState[string(c.Resource)]; ok {
				row.Loaded, row.Title, row.Extension = true, deref(st.Title), st.ExtensionID
				if st.ExtensionName != nil {
					row.Extension = *st.ExtensionName
				}
				row.Status = deref(st.Status)
			}
			v.Canvases = append(v.Canvases, row)
		}
	}
	if r.hasSess && r.sess.Annotations != nil {
		v.HasAnnotations, v.AnnotationCount, v.EntryCount = true, r.sess.Annotations.AnnotationCount, r.sess.Annotations.EntryCount
		dir := ""
		if len(r.sess.WorkingDirectories) > 0 {
			dir = strings.TrimSuffix(string(r.sess.WorkingDirectories[0]), "/") + "/"
		}
		if r.notes != nil {
			for _, a := range r.notes.Annotations {
				row := views.AnnotationRow{File: strings.TrimPrefix(string(a.Resource), dir), Resolved: a.Resolved, Entries: len(a.Entries)}
				if len(a.Entries) > 0 {
					row.First = a.Entries[0].Text.Value
				}
				v.Annotations = append(v.Annotations, row)
			}
		}
	}
	return views.RenderResources(r.th, r.keys, v, r.sheetWidth(), r.height)
}
