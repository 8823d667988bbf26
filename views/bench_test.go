package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
)

// benchChat builds a chat of n finished turns, each a user message, about
// five lines of markdown and one completed MCP tool call, plus an active
// turn whose markdown part is empty and ready to stream into.
func benchChat(n int) protocol.ChatState {
	chat := protocol.ChatState{Resource: "ahp-chat:/bench", Title: "bench", Turns: make([]protocol.Turn, 0, n)}
	for i := 0; i < n; i++ {
		md := fmt.Sprintf("Turn %d: I looked at **the build** and found the cause.\n\n"+
			"- `go vet` reports nothing\n- the test `TestReconnect` is flaky\n\n"+
			"I will retry it with `-count=20` and report back on turn %d.\n", i, i)
		input := `{"path":"protocol/mirror.go","line":42}`
		chat.Turns = append(chat.Turns, protocol.Turn{
			ID:      fmt.Sprintf("turn-%d", i),
			Message: protocol.Message{Text: fmt.Sprintf("Please check the build, step %d.", i), Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}},
			ResponseParts: []protocol.ResponsePart{
				protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: fmt.Sprintf("md-%d", i), Content: protocol.NewText(md)}),
				protocol.NewResponsePart(protocol.ToolCallResponsePart{ToolCall: protocol.NewToolCallState(protocol.ToolCallCompletedState{
					ToolCallID: fmt.Sprintf("tc-%d", i), ToolName: "read_file", DisplayName: "Read file",
					InvocationMessage: protocol.PlainString("Reading protocol/mirror.go"),
					ToolInput:         &input, Success: true,
					PastTenseMessage: protocol.PlainString("Read protocol/mirror.go"),
					Content:          []protocol.ToolResultContent{protocol.NewToolResultContent(protocol.ToolResultTextContent{Text: "package protocol\n\n// Mirror keeps…"})},
					Confirmed:        protocol.ToolCallConfirmationReasonNotNeeded,
				})}),
			},
			State: protocol.TurnStateComplete,
		})
	}
	chat.ActiveTurn = &protocol.ActiveTurn{
		ID: "active", StartedAt: "2026-11-29T16:00:00Z",
		Message:       protocol.Message{Text: "Now write up what you found.", Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}},
		ResponseParts: []protocol.ResponsePart{protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: "stream"})},
	}
	return chat
}

// benchStream is the streamed answer: ordinary prose in paragraphs of a few
// hundred bytes, with the inline markdown an agent writes.
func benchStream(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Paragraph %d: the reconnect path **replays pending actions** over the new "+
			"confirmed state, and `Text.Append` keeps each delta linear. ", i)
		if i%3 == 2 {
			b.WriteString("\n\n")
		}
	}
	return b.String()[:n]
}

// BenchmarkTranscriptStreaming measures one frame while an answer streams:
// a 1000-turn chat (each turn a user message, ~5 lines of markdown and a
// completed tool call), 1000 deltas of 16 bytes appended to the active
// turn's markdown, and after each delta a 160×50 viewport rendered at the
// bottom. Budget: < 4 ms per frame (ns/op here is per frame), so streaming
// stays smooth at 60 deltas a second with room for the rest of the UI.
// The first frame, which renders the finished turns it shows (once per
// width in the program), is drawn before the timer starts.
func BenchmarkTranscriptStreaming(b *testing.B) {
	const deltas, deltaSize = 1000, 16
	for _, noColor := range []bool{false, true} {
		name := "color"
		if noColor {
			name = "nocolor"
		}
		b.Run(name, func(b *testing.B) {
			th := NewTheme(true, noColor)
			base := benchChat(1000)
			stream := benchStream(deltas * deltaSize)
			tr := NewTranscript(th)
			tr.SetChat(base, nil)
			tr.Render(160, 50, 0, TranscriptOptions{})
			b.ReportAllocs()
			b.ResetTimer()
			frames := 0
			start := time.Now()
			for frames < b.N {
				// One streamed answer per 1000 frames, restarted as needed.
				chat := base
				at := *base.ActiveTurn
				text := protocol.Text{}
				for d := 0; d < deltas && frames < b.N; d++ {
					text = text.Append(stream[d*deltaSize : (d+1)*deltaSize])
					at.ResponseParts = []protocol.ResponsePart{protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: "stream", Content: text})}
					at2 := at
					chat.ActiveTurn = &at2
					tr.SetChat(chat, nil)
					out := tr.Render(160, 50, 0, TranscriptOptions{})
					if len(out) == 0 {
						b.Fatal("empty frame")
					}
					frames++
				}
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/float64(frames)/1000, "ms/frame")
		})
	}
}
