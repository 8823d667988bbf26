package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
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
