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
					ToolInput:         protocol.InlineToolInput(input), Success: true,
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

// benchMCPCustomizations is a session with n MCP servers in a mix of
// states (every seventh in error, every eleventh waiting for sign-in), half
// of them inside plugins.
func benchMCPCustomizations(n int) []protocol.Customization {
	server := func(i int) protocol.McpServerCustomization {
		var st protocol.McpServerStateVariant = protocol.McpServerReadyState{}
		switch {
		case i%7 == 3:
			st = protocol.McpServerErrorState{Error: protocol.ErrorInfo{ErrorType: "spawn", Message: fmt.Sprintf("exec: \"mcp-%d\": executable file not found in $PATH", i)}}
		case i%11 == 5:
			st = protocol.McpServerAuthRequiredState{Reason: "insufficientScope", Resource: protocol.ProtectedResourceMetadata{Resource: fmt.Sprintf("https://mcp.example.com/%d", i)}, RequiredScopes: []string{"tools:read"}}
		case i%5 == 1:
			st = protocol.McpServerStartingState{}
		}
		return protocol.McpServerCustomization{ID: fmt.Sprintf("mcp-%d", i), Name: fmt.Sprintf("server-%04d", i), URI: "file:///mcp", Enablement: protocol.SessionEnablement(i%13 != 0), State: protocol.NewMcpServerState(st)}
	}
	var cs []protocol.Customization
	for i := 0; i < n; {
		if i%20 == 10 && i+10 <= n {
			var children []protocol.ChildCustomization
			for j := 0; j < 10; j++ {
				children = append(children, protocol.NewChildCustomization(server(i+j)))
			}
			cs = append(cs, protocol.NewCustomization(protocol.PluginCustomization{ID: fmt.Sprintf("plugin-%d", i), Name: fmt.Sprintf("toolkit-%d", i), Children: children}))
			i += 10
			continue
		}
		cs = append(cs, protocol.NewCustomization(server(i)))
		i++
	}
	return cs
}

// BenchmarkMCPPanel measures the MCP panel's share of a frame after the
// selection moved (so the panel must be drawn again) with 10 and 1000
// servers: rows derived from the session, the height the narrow layout
// asks for, and the panel drawn. wide is the 40×30 panel beside the chat,
// narrow the 160-column strip under it (8 rows, servers in columns).
//
// Budget: < 4 ms per frame each, and 1000 servers under 20x the cost of 10
// (layout linear in the servers: mcpCompact once measured widths inside a
// loop over line counts, 612 ms a frame at 1000 servers).
func BenchmarkMCPPanel(b *testing.B) {
	th := NewTheme(true, false)
	for _, layout := range []struct {
		name string
		w, h int
	}{{"wide", 40, 30}, {"narrow", 160, 8}} {
		for _, n := range []int{10, 1000} {
			b.Run(fmt.Sprintf("%s/%d", layout.name, n), func(b *testing.B) {
				cs := benchMCPCustomizations(n)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					rows := MCPServerRows(cs)
					h := layout.h
					if layout.name == "narrow" {
						h = min(h, MCPPanelHeight(th, rows, layout.w))
					}
					out := RenderMCPPanel(th, rows, i%n, nil, nil, nil, layout.w, h, true)
					if len(out) == 0 {
						b.Fatal("empty panel")
					}
					i += 37
				}
			})
		}
	}
}

// benchStreamFrames measures one frame of a streaming answer: a 16-byte
// delta appended to the active turn's markdown, then the 160×50 viewport
// rendered. The answer starts as base (drawn once before the timer) and
// grows by more; every 256 frames it goes back to base, so every frame is
// drawn while the answer holds between len(base) and len(base)+4 KB.
func benchStreamFrames(b *testing.B, base, more string) {
	const deltaSize, window = 16, 256
	if len(more) < deltaSize*window {
		b.Fatalf("continuation of %d bytes, want %d", len(more), deltaSize*window)
	}
	tr := NewTranscript(NewTheme(true, false))
	chat := benchChat(20)
	at := *chat.ActiveTurn
	baseText := protocol.NewText(base)
	show := func(text protocol.Text) {
		at.ResponseParts = []protocol.ResponsePart{protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: "stream", Content: text})}
		turn := at
		chat.ActiveTurn = &turn
		tr.SetChat(chat, nil)
		if out := tr.Render(160, 50, 0, TranscriptOptions{}); len(out) == 0 {
			b.Fatal("empty frame")
		}
	}
	show(baseText)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	frames := 0
	for frames < b.N {
		text := baseText
		for d := 0; d < window && frames < b.N; d++ {
			text = text.Append(more[d*deltaSize : (d+1)*deltaSize])
			show(text)
			frames++
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(frames)/1000, "ms/frame")
}

// benchCode is Go source of at least n bytes, cut at n.
func benchCode(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "// handle%d replays pending actions over the confirmed state.\n"+
			"func handle%d(s *State, a Action) error {\n\tif err := s.apply(a); err != nil {\n"+
			"\t\treturn fmt.Errorf(\"apply %%s: %%w\", a.Type, err)\n\t}\n\treturn nil\n}\n\n", i, i)
	}
	return b.String()[:n]
}

// BenchmarkStreamingCodeBlock measures one frame (a 16-byte delta, then a
// 160×50 viewport) while the answer's open fenced code block holds 4 KB,
// 64 KB and 256 KB.
//
// Budget: < 4 ms per frame at every size, and 256K under 2x the 4K figure:
// finished segments of the block are highlighted once and kept, so a frame
// renders only the open segment (it re-rendered and re-highlighted the
// whole block: 21 ms at 4 KB, 344 ms at 64 KB, 1.44 s at 256 KB).
func BenchmarkStreamingCodeBlock(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"4K", 4 << 10}, {"64K", 64 << 10}, {"256K", 256 << 10}} {
		b.Run(size.name, func(b *testing.B) {
			code := benchCode(size.n + 8<<10)
			intro := "Here is the patch:\n\n```go\n"
			benchStreamFrames(b, intro+code[:size.n], code[size.n:])
		})
	}
}

// BenchmarkStreamingProse measures one frame (a 16-byte delta, then a
// 160×50 viewport) while the answer is 4 KB and 256 KB of prose.
//
// Budget: < 1 ms per frame at both sizes: finished paragraphs are
// sanitized, rendered and indented once, so a frame costs the last
// paragraph (sanitize and indent over the whole answer made it 0.45 ms at
// 4 KB and 1.14 ms at 256 KB).
func BenchmarkStreamingProse(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"4K", 4 << 10}, {"256K", 256 << 10}} {
		b.Run(size.name, func(b *testing.B) {
			text := benchStream(size.n + 8<<10)
			benchStreamFrames(b, text[:size.n], text[size.n:])
		})
	}
}
