package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
)

// TestResourcesSheetReadsOnRequest: A on the demo's side chat lists its
// ContentRef attachment (label, kind, size) and the session's annotations
// with their counts and entries, and reads nothing; enter reads the
// attachment from the host, once, and shows it. On the first chat the
// sheet lists its canvas by its title. Closing unsubscribes what it
// watched (issue 23: a ContentRef is fetched only on the user's request;
// canvases and annotations listed with titles and counts).
func TestResourcesSheetReadsOnRequest(t *testing.T) {
	d := newDriver(t, nil)
	openHistory(d)
	d.keys("c")
	selectChat(d, demohost.SideChatURI)
	d.keys("enter")
	d.until("the side chat", func() bool { return d.m.openChat == demohost.SideChatURI && d.m.hasChat })
	d.m.focus = focusChat
	d.keys("A")
	if !d.m.resources.open {
		t.Fatal("A did not open the sheet")
	}
	d.until("the annotations listed", func() bool { return d.m.resources.notes != nil })
	screen := ansi.Strip(d.m.Render())
	for _, want := range []string{"📎 reconnect-flake.log · text/plain · 112 B", "Annotations · 2 annotations, 3 entries",
		"protocol/conn_test.go · open · 2 entries · Why 5 s and not 1 s?", "protocol/wait.go · resolved · 1 entry"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the sheet lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "240ms FAIL") || len(d.rec.reads) != 0 {
		t.Fatalf("the attachment was read before the key: %v", d.rec.reads)
	}
	d.keys("enter")
	d.until("the attachment read", func() bool { return !d.m.resources.loading && d.m.resources.text != "" })
	screen = ansi.Strip(d.m.Render())
	if !strings.Contains(screen, "run 2: reconnect after 240ms FAIL (slept 200ms)") || !strings.Contains(screen, "112 B · read") {
		t.Errorf("the attachment is not shown:\n%s", screen)
	}
	if len(d.rec.reads) != 1 || d.rec.reads[0] != demohost.SideAttachmentURI {
		t.Errorf("reads %v, want the attachment once", d.rec.reads)
	}
	notes := d.m.sess.Annotations.Resource
	d.keys("esc")
	d.until("the annotations unwatched", func() bool {
		_, watched := d.rec.State(string(notes))
		return !d.m.resources.open && !watched
	})

	d.keys("c")
	selectChat(d, demohost.HistoryChatURI)
	d.keys("enter")
	d.until("the first chat", func() bool { return d.m.openChat == demohost.HistoryChatURI && d.m.hasChat })
	d.m.focus = focusChat
	d.keys("A")
	d.until("the canvas's state", func() bool { return len(d.m.resources.canvasState) == 1 })
	screen = ansi.Strip(d.m.Render())
	if !strings.Contains(screen, "Canvases (1)") || !strings.Contains(screen, "▣ "+demohost.HistoryCanvasTitle+" · Demo charts · 3 runs plotted") {
		t.Errorf("the canvas is not listed by its title:\n%s", screen)
	}
	if strings.Contains(screen, "Attachments ·") {
		t.Errorf("a chat without attachments lists them:\n%s", screen)
	}
}

// capReader is a client whose ReadContent records the cap it is given
// and answers with a hostile text or an error.
type capReader struct {
	*stubClient
	max  int
	text string
	err  error
}

func (c *capReader) ReadContent(_ context.Context, _ protocol.ContentRef, maxBytes int) (string, error) {
	c.max = maxBytes
	return c.text, c.err
}

// TestAttachmentReadBoundedAndInert: reading asks the client for at most
// maxAttachmentRead bytes, a refusal (too big) is said in the sheet, and
// a text full of escapes is shown inert.
func TestAttachmentReadBoundedAndInert(t *testing.T) {
	size := int64(9 << 30)
	att := protocol.MessageAttachment{Variant: protocol.MessageResourceAttachment{Label: "huge.log", URI: "x:/huge", SizeHint: &size}}
	chat := protocol.ChatState{Resource: fxChat, Turns: []protocol.Turn{{ID: "t1", State: protocol.TurnStateComplete,
		Message: protocol.Message{Text: "see", Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}, Attachments: []protocol.MessageAttachment{att}}}}}
	m := fxModel(chat)
	m.resize(100, 30)
	c := &capReader{stubClient: m.client.(*stubClient), err: errors.New("content is over the 262144-byte cap")}
	m.client = c
	m.Update(press("A"))
	pump(t, m, m.resources.read(m.resources.attachments()), "the refusal", func() bool { return !m.resources.loading })
	if c.max != maxAttachmentRead {
		t.Errorf("read with a cap of %d, want %d", c.max, maxAttachmentRead)
	}
	if s := ansi.Strip(m.Render()); !strings.Contains(squash(s), squash("could not read it: content is over the 262144-byte cap")) {
		t.Errorf("the refusal is not said:\n%s", s)
	}
	c.err, c.text = nil, "line \x1b[2J\x1b]52;c;cm0=\x07one\nline \u202etwo\n"
	pump(t, m, m.resources.read(m.resources.attachments()), "the text", func() bool { return m.resources.text != "" })
	out := m.Render()
	assertInert(t, out)
	if !strings.Contains(ansi.Strip(out), "line one") {
		t.Errorf("the text is not shown:\n%s", ansi.Strip(out))
	}
}
