package protocol

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// actionNotificationParams is the params object of one `action`
// notification carrying a 16-byte chat/delta: the message a client decodes
// most often while an answer streams.
const actionNotificationParams = `{"channel":"ahp-chat:/6f1c2a9e-3b7d-4c1e-9a52-0d8e7f6b5a43",` +
	`"action":{"type":"chat/delta","turnId":"turn-7f3a","partId":"md-1","content":"0123456789abcdef"},` +
	`"serverSeq":48213,"origin":{"clientId":"client-9b2e","clientSeq":311}}`

// BenchmarkDecodeActionEnvelope decodes the params of one `action`
// notification (a chat/delta envelope) into an ActionEnvelope.
//
// Budget: < 5 µs/op on a 2-core machine, so decoding stays far below the
// cost of drawing a frame even at hundreds of deltas per second. Measured
// ≈2.3–2.8 µs, 568 B and 16 allocs per op: the generated decoders read the
// discriminator with a top-level byte scan (union_scan.go) and fill plain
// variants such as chat/delta directly, instead of unmarshalling twice.
func BenchmarkDecodeActionEnvelope(b *testing.B) {
	raw := []byte(actionNotificationParams)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		var env ActionEnvelope
		if err := json.Unmarshal(raw, &env); err != nil {
			b.Fatal(err)
		}
		if _, ok := env.Action.Variant.(ChatDeltaAction); !ok {
			b.Fatalf("decoded %T", env.Action.Variant)
		}
	}
}

// benchChatDelta streams n deltas of 16 bytes into one markdown part of a
// chat that already holds 1000 completed turns, and reports ns per delta.
// Every iteration starts from the same immutable base state.
func benchChatDelta(b *testing.B, n int) {
	base := chatStreamingState()
	a := StateAction{Variant: ChatDeltaAction{Type: "chat/delta", TurnID: "t1", PartID: "md", Content: "0123456789abcdef"}}
	stream := func() ChatState {
		s := base
		for range n {
			s = ReduceChat(s, a, Rules{})
		}
		return s
	}
	// One untimed pass first: the heap grows to its working size (page
	// faults, the collector's pacing) once, not inside the single timed
	// iteration a 100k run often gets, which made the ratio to 10k (whose
	// many iterations amortize it) look superlinear.
	stream()
	b.ReportAllocs()
	cpu0, cpuOK := processCPU()
	for b.Loop() {
		s := stream()
		if got := s.ActiveTurn.ResponseParts[0].Variant.(MarkdownResponsePart).Content.Len(); got != 16*n {
			b.Fatalf("text length %d, want %d", got, 16*n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/delta")
	if cpu1, ok := processCPU(); ok && cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkChatDelta10k applies 10,000 chat/delta actions of 16 bytes to one
// markdown response part.
//
// Budget: < 1 µs per delta (< 10 ms/op) on a 2-core machine (measured
// ≈360-450 ns/delta unloaded, 2 allocs and ≈295 B per delta;
// TestChatDeltaAllocs pins the allocation count).
func BenchmarkChatDelta10k(b *testing.B) { benchChatDelta(b, 10_000) }

// BenchmarkChatDelta100k applies 100,000 chat/delta actions of 16 bytes to
// one markdown response part.
//
// Budget: under 11x the cpu-ns/op of BenchmarkChatDelta10k, median of 3
// runs each (streaming is linear: the ns/delta metric of both stays within
// 10%); TestChatDeltaLinear enforces the same property through allocated
// bytes per delta. The ratio is taken on the process's CPU time, which a
// loaded machine barely moves: wall-clock runs of the two on a machine
// shared with other builds ranged from 7x to 23x while CPU time stayed
// linear.
func BenchmarkChatDelta100k(b *testing.B) { benchChatDelta(b, 100_000) }

// chatSnapshotJSON encodes a Snapshot of a chat with turns completed turns,
// each with a user message, two markdown parts and two completed tool calls.
func chatSnapshotJSON(tb testing.TB, turns int) []byte {
	tb.Helper()
	mcp := ToolCallContributor{Variant: ToolCallMcpContributor{Kind: "mcp", CustomizationID: "github"}}
	para := strings.Repeat("Streaming answers stay linear because text grows at its end. ", 6)
	s := ChatState{
		Resource:   "ahp-chat:/bench",
		Title:      "A long conversation",
		Status:     SessionStatusIdle | SessionStatusIsRead,
		ModifiedAt: "2026-07-20T10:00:00.000Z",
		Turns:      make([]Turn, turns),
	}
	for i := range s.Turns {
		started := "2026-07-20T09:00:00.000Z"
		d := 1234.0
		in, out := int64(1200+i), int64(340)
		tool := func(n int) ResponsePart {
			return ResponsePart{Variant: ToolCallResponsePart{Kind: "toolCall", ToolCall: ToolCallState{Variant: ToolCallCompletedState{
				ToolCallID:        fmt.Sprintf("tc-%d-%d", i, n),
				ToolName:          "read_file",
				DisplayName:       "Read File",
				Contributor:       &mcp,
				InvocationMessage: PlainString(fmt.Sprintf("Reading src/file%d.go", n)),
				ToolInput:         InlineToolInput(fmt.Sprintf(`{"path":"src/file%d.go"}`, n)),
				Success:           true,
				PastTenseMessage:  MarkdownString(fmt.Sprintf("Read `src/file%d.go`", n)),
				Content:           []ToolResultContent{{Variant: ToolResultTextContent{Type: "text", Text: strings.Repeat("package main\n", 8)}}},
				Confirmed:         ToolCallConfirmationReasonNotNeeded,
				Status:            "completed",
			}}}}
		}
		s.Turns[i] = Turn{
			ID:        fmt.Sprintf("turn-%d", i),
			StartedAt: &started,
			Duration:  &d,
			Message:   Message{Text: fmt.Sprintf("Question %d: what does this code do?", i), Origin: MessageOrigin{Kind: MessageKindUser}},
			ResponseParts: []ResponsePart{
				{Variant: MarkdownResponsePart{Kind: "markdown", ID: fmt.Sprintf("md-%d-a", i), Content: NewText(para)}},
				tool(1),
				tool(2),
				{Variant: MarkdownResponsePart{Kind: "markdown", ID: fmt.Sprintf("md-%d-b", i), Content: NewText(para)}},
			},
			Usage: &UsageInfo{InputTokens: &in, OutputTokens: &out, Model: chatStrPtr("gpt-bench")},
			State: TurnStateComplete,
		}
	}
	b, err := json.Marshal(Snapshot{Resource: s.Resource, State: SnapshotState{Variant: s}, FromSeq: 99})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkApplySnapshot1000Turns is the client's path for the Snapshot
// of a 1000-turn chat (about 2.3 MB of JSON), the work it does on
// subscribe or reconnect: the Snapshot, its state decoded as the chat's
// (UnmarshalWire, one validating pass), and the first action after it
// (chat/turnStarted) reduced onto it.
//
// Budget: x-valid < 2, median of 3: the path costs under twice json.Valid
// of the same frame, measured pair by pair in the same run (benchVsValid in
// wire_bench_test.go), so it tracks what reading the bytes costs on any
// machine. old-x-valid is the path as it was beside it: encoding/json for
// the envelope (state kept raw) and the state, 5.0 to 5.6x, 28 to 35 ms,
// because every json.RawMessage and union decoder validated its bytes
// again (checkValid was about 30% of the profile).
//
// Measured 2026-12-05 on the shared 2-core machine at load 10-11 (-count 3,
// medians of the three): x-valid 1.52 (0.92, 1.52, 1.71), old-x-valid 6.6
// (6.1, 8.9, 6.6); 12 to 37 ms against 80 to 129 ms, 12.3 MB and 166k
// allocs per path.
func BenchmarkApplySnapshot1000Turns(b *testing.B) {
	frame := chatSnapshotJSON(b, 1000)
	start := StateAction{Variant: ChatTurnStartedAction{Type: "chat/turnStarted", TurnID: "turn-new", StartedAt: "2026-07-20T10:00:01.000Z", Message: chatMsg("next")}}
	benchVsValid(b, frame, func(f []byte) error {
		return applySnapshot(f, start, wantChat(1000))
	}, func(f []byte) error {
		return legacySnapshot[ChatState](f, start, wantChat(1000))
	})
}

// benchChatTurns builds a chat of n completed turns through the reducer,
// the way a long session arrives over the wire: per turn chat/turnStarted,
// a markdown part streamed as 32 deltas of 64 bytes (2 KB), two tool calls
// (start, ready, complete) and chat/turnComplete.
func benchChatTurns(n int) ChatState {
	delta := strings.Repeat("Turns append in amortized O(1); old snapshots stay. ", 2)[:64]
	s := ChatState{Resource: "ahp-chat:/bench", Title: "bench", Status: SessionStatusIdle, Turns: []Turn{}}
	for i := range n {
		id := fmt.Sprintf("turn-%d", i)
		apply := func(v StateActionVariant) { s = ReduceChat(s, StateAction{Variant: v}, Rules{}) }
		apply(ChatTurnStartedAction{Type: "chat/turnStarted", TurnID: id, StartedAt: "2026-07-20T10:00:00.000Z", Message: chatMsg("Question: what does this code do?")})
		apply(ChatResponsePartAction{Type: "chat/responsePart", TurnID: id, Part: ResponsePart{Variant: MarkdownResponsePart{Kind: "markdown", ID: "md"}}})
		for range 32 {
			apply(ChatDeltaAction{Type: "chat/delta", TurnID: id, PartID: "md", Content: delta})
		}
		for _, tc := range []string{"tc-1", "tc-2"} {
			apply(ChatToolCallStartAction{Type: "chat/toolCallStart", TurnID: id, ToolCallID: tc, ToolName: "read_file", DisplayName: "Read File"})
			apply(ChatToolCallReadyAction{Type: "chat/toolCallReady", TurnID: id, ToolCallID: tc,
				InvocationMessage: PlainString("Reading src/file.go"), ToolInput: InlineToolInput(`{"path":"src/file.go"}`)})
			apply(ChatToolCallCompleteAction{Type: "chat/toolCallComplete", TurnID: id, ToolCallID: tc, Result: ToolCallResult{
				Success: true, PastTenseMessage: PlainString("Read src/file.go"),
				Content: []ToolResultContent{{Variant: ToolResultTextContent{Type: "text", Text: "package main\n"}}},
			}})
		}
		apply(ChatTurnCompleteAction{Type: "chat/turnComplete", TurnID: id, Duration: 1200})
	}
	return s
}

// benchTurns reports ns/turn for building a chat of n completed turns and,
// from one build kept alive after a collection, the live heap it holds
// (MiB-live).
func benchTurns(b *testing.B, n int) {
	b.ReportAllocs()
	for b.Loop() {
		if s := benchChatTurns(n); len(s.Turns) != n || s.ActiveTurn != nil {
			b.Fatalf("%d turns, active %v", len(s.Turns), s.ActiveTurn != nil)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/turn")
	b.StopTimer()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := benchChatTurns(n)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "MiB-live")
}

// BenchmarkChatTurns builds chats of 1k and 10k completed turns through the
// reducer (2 KB of streamed markdown and two tool calls per turn).
//
// Budget: the ns/turn of 10k stays under 1.5x that of 1k (completing a turn
// is amortized O(1): chatEndTurn once copied every earlier turn, 143 µs per
// turn at 1k and 582 µs at 10k), and the 10k chat holds under 40 MiB of
// live heap (MiB-live).
func BenchmarkChatTurns(b *testing.B) {
	b.Run("1k", func(b *testing.B) { benchTurns(b, 1_000) })
	b.Run("10k", func(b *testing.B) { benchTurns(b, 10_000) })
}

// BenchmarkTerminalData10MB reduces 10 MB of pty output, 1 KiB per
// terminal/data action, into one terminal's state: the client's mirror of
// a long build log. Each action must cost its own bytes, not the run's:
// with a plain string every append copied the whole run (38 s and 53 GB
// for this stream).
//
// Budget: < 100 ms/op on a 2-core machine (about 10 µs per action);
// measured 5.5–10 ms unloaded as Text, 38.8 s as a string.
func BenchmarkTerminalData10MB(b *testing.B) {
	chunk := strings.Repeat("building package x/y/z ... ok\r\n", 40)[:1024]
	const actions = 10 << 10
	data := StateAction{Variant: TerminalDataAction{Type: "terminal/data", Data: chunk}}
	for b.Loop() {
		var s TerminalState
		for range actions {
			s = ReduceTerminal(s, data)
		}
		if got := partLen(s); got != actions*len(chunk) {
			b.Fatalf("the terminal holds %d bytes, want %d", got, actions*len(chunk))
		}
	}
}

func partLen(s TerminalState) int {
	n := 0
	for _, p := range s.Content {
		if v, ok := p.Variant.(TerminalUnclassifiedPart); ok {
			n += v.Value.Len()
		}
	}
	return n
}
