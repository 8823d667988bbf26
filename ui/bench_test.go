package ui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// benchChat is a realistic long session: 1000 finished turns, each a user
// message, reasoning, two paragraphs of markdown and a finished tool call,
// then a running turn whose tool call waits for approval.
func benchChat() protocol.ChatState {
	chat := fxChatState()
	turns := make([]protocol.Turn, 0, 1000)
	for i := range 1000 {
		turns = append(turns, protocol.Turn{ID: fmt.Sprintf("b%d", i), Message: userMsg(fmt.Sprintf("Step %d: look at the next failing test and fix it.", i)),
			State: protocol.TurnStateComplete, ResponseParts: []protocol.ResponsePart{
				part(protocol.ReasoningResponsePart{ID: fmt.Sprintf("br%d", i), Content: protocol.NewText("Read the test, then the code under test.")}),
				part(protocol.MarkdownResponsePart{ID: fmt.Sprintf("bm%d", i), Content: protocol.NewText(
					"The failure comes from a **race** between the reader and `Close`.\n\nI moved the close into the reader loop so it runs after the last frame.")}),
				tcPart(protocol.ToolCallCompletedState{ToolCallID: fmt.Sprintf("btc%d", i), ToolName: "search_files", DisplayName: "Search files",
					Contributor: mcpBy("fs"), InvocationMessage: protocol.PlainString("Searching"), Success: true,
					PastTenseMessage: protocol.PlainString("Found 2 matches"), Confirmed: protocol.ToolCallConfirmationReasonNotNeeded}),
			}})
	}
	chat.Turns = turns
	return chat
}

// okStub accepts every dispatch, so the benchmark measures the model, not
// an error path.
type okStub struct{ *stubClient }

func (okStub) Dispatch(string, protocol.StateAction) (int64, error) { return 1, nil }

func benchModel(b *testing.B) *Model {
	m := fxModel(benchChat())
	m.client = okStub{m.client.(*stubClient)}
	m.resize(160, 50)
	// Selected as the UI selects: by turn and id (a selection without its
	// turn is not one the UI makes, and ] then starts from the top).
	for _, it := range m.chatPanel.items() {
		if it.ID == "tc4" {
			m.chatPanel.sel = selOf(it)
		}
	}
	if m.chatPanel.sel.item != "tc4" {
		b.Fatal("the benchmark chat has no tc4")
	}
	_ = m.Render() // warm the transcript cache, as the idle ticks would
	return m
}

// BenchmarkKeyToFrame measures one key press to its action frame: Update
// with the key (which dispatches the action) plus View, on a model holding
// a 1000-turn chat at 160x50.
//
// Budget: under 1 ms of model work per key (ns/op < 1,000,000), so typing
// and approving stay instant however long the session has run. Measured on
// a loaded 2-CPU box (load ≈10): approve ≈0.27–0.3 ms, next-card ≈0.42–0.54
// ms, scroll ≈0.6 ms (it clamps at the first line, views.ClampScroll),
// help (j/k in the ? overlay at 80x24) ≈0.17 ms. help used to cost
// 0.2 s a key (2.7 s under -race, enough for the tmux tests to miss the
// scroll): each frame laid the overlay out again and measured every line
// once per column height it tried. It is laid out once per open and size,
// and an overlay that covers the screen is the frame (1.4–1.6 ms while
// the panels under it were still drawn and composed).
// next-card used to cost 2–11 ms: views' Transcript
// cached whole turns, so selecting a card in a finished turn re-rendered
// that turn's markdown, and locating the card counted lines from the top,
// which rendered every turn of the chat on the first selection. It now
// caches each part and locates the card from the end.
func BenchmarkKeyToFrame(b *testing.B) {
	for _, tc := range []struct{ name, key string }{
		{"approve", "a"},   // dispatch chat/toolCallConfirmed
		{"next-card", "]"}, // move the selection (re-renders two cards)
		{"scroll", "k"},    // scroll the transcript
		{"help", "j"},      // scroll the ? overlay at 80x24
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := benchModel(b)
			k := press(tc.key)
			back := press("[")
			if tc.name == "help" {
				m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
				m.Update(press("?"))
				back = press("k")
				if !m.showAll {
					b.Fatal("? did not open the help overlay")
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				m.focus = focusChat
				if (tc.key == "]" || tc.name == "help") && i%2 == 1 {
					m.Update(back)
				} else {
					m.Update(k)
				}
				_ = m.View()
			}
		})
	}
}

// BenchmarkStreamDelta measures the model's work for one streamed chunk:
// Update with the chat's new snapshot (a new running turn, as every
// delta makes), on a model holding a 1000-turn chat. No frame is drawn:
// frames are paced by the terminal, deltas by the host.
//
// Budget: under 100 µs per chunk (ns/op < 100,000), so a host streaming a
// few hundred chunks a second costs the UI a few percent of a core.
// Measured on a loaded 2-CPU box: 42–57 µs, 232 B, 5 allocs. It used to
// be 4.4–5.2 ms and 1 MB a chunk: every chunk rebuilt the items of all
// 1000 turns, scanned them twice for what waits on the user, derived the
// MCP rows four times and consulted the saved tokens. Now the finished
// turns' items and the session's servers are derived once per snapshot,
// and sign-in and blockers act only when what concerns them changed.
func BenchmarkStreamDelta(b *testing.B) {
	m := benchModel(b)
	stub := m.client.(okStub).stubClient
	chat := stub.chats[fxChat]
	ev := eventMsg{client.ChannelStateEvent{Channel: fxChat}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		at := *chat.ActiveTurn // a delta replaces the running turn
		chat.ActiveTurn = &at
		stub.chats[fxChat] = chat
		m.Update(ev)
	}
}
