package views

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

func userMsg(s string) protocol.Message {
	return protocol.Message{Text: s, Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}}
}

func mdPart(id, s string) protocol.ResponsePart {
	return protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: id, Content: protocol.NewText(s)})
}

func toolPart(tc protocol.ToolCallState) protocol.ResponsePart {
	return protocol.NewResponsePart(protocol.ToolCallResponsePart{ToolCall: tc})
}

// testChat is a chat with one of everything a transcript shows: finished
// turns that completed, failed and were cancelled; reasoning, tool calls,
// a system notification, an answered input request, usage; and an active
// turn streaming an answer after collapsed reasoning.
func testChat() protocol.ChatState {
	accept := protocol.ChatInputResponseKindAccept
	return protocol.ChatState{
		Resource: "ahp-chat:/c1", Title: "Fix the login bug", Status: protocol.SessionStatusInProgress,
		Activity: ptr("Writing the summary"),
		Turns: []protocol.Turn{
			{ID: "t1", Message: userMsg("Why does login fail after the upgrade?"), State: protocol.TurnStateComplete,
				ResponseParts: []protocol.ResponsePart{
					protocol.NewResponsePart(protocol.ReasoningResponsePart{ID: "r1", Content: protocol.NewText("The session cookie changed name in v2, so old cookies are ignored and the user looks logged out.")}),
					mdPart("m1", "The upgrade renamed the **session cookie**:\n\n- before: `sid`\n- after: `__Host-sid`\n\nOld cookies are ignored, so users look logged out."),
					toolPart(toolCardCases[6].tc),
				},
				Usage: &protocol.UsageInfo{InputTokens: ptr(int64(12345)), OutputTokens: ptr(int64(678)), CacheReadTokens: ptr(int64(9000)), Model: ptr("gpt-test")}},
			{ID: "t2", Message: userMsg("Deploy the fix."), State: protocol.TurnStateError,
				ResponseParts: []protocol.ResponsePart{
					toolPart(toolCardCases[7].tc),
					protocol.NewResponsePart(protocol.SystemNotificationResponsePart{Content: protocol.PlainString("Background job lint finished.")}),
					protocol.NewResponsePart(protocol.ErrorResponsePart{Error: protocol.ErrorInfo{ErrorType: "tool_failed", Message: "the deploy failed; see the tool output"}}),
				}},
			{ID: "t3", Message: userMsg("Which environment?"), State: protocol.TurnStateCancelled,
				ResponseParts: []protocol.ResponsePart{
					protocol.NewResponsePart(protocol.InputRequestResponsePart{Response: &accept, Request: testInputRequest()}),
				}},
		},
		ActiveTurn: &protocol.ActiveTurn{ID: "t4", StartedAt: "2026-11-29T15:59:00Z", Message: userMsg("Summarise what you changed."),
			ResponseParts: []protocol.ResponsePart{
				protocol.NewResponsePart(protocol.ReasoningResponsePart{ID: "r4", Content: protocol.NewText("List the cookie change, the deploy failure and the fix.")}),
				mdPart("m4", "## Summary\n\nI renamed the cookie back and added a migration that reads **both** names.\n\nThe deploy is still bl"),
				toolPart(toolCardCases[1].tc),
			}},
	}
}

func TestTranscriptGolden(t *testing.T) {
	chat := testChat()
	opts := TranscriptOptions{SelectedToolCall: "tc-2"}
	for _, w := range goldenWidths {
		tr := NewTranscript(noColorTheme)
		tr.SetChat(chat, mcpCustomizations())
		out := tr.Render(w, tr.TotalLines(w, opts), 0, opts)
		checkScreen(t, noColorTheme, out, w)
		checkGolden(t, "transcript", w, out)
	}
	tr := NewTranscript(colorTheme)
	tr.SetChat(chat, mcpCustomizations())
	out := tr.Render(100, tr.TotalLines(100, opts), 0, opts)
	checkScreen(t, colorTheme, out, 100)
	checkGolden(t, "transcript_color", 100, out)
	// A viewport scrolled into the middle, as the chat panel shows it.
	tr = NewTranscript(noColorTheme)
	tr.SetChat(chat, mcpCustomizations())
	out = tr.Render(100, 20, 25, opts)
	checkScreen(t, noColorTheme, out, 100)
	checkGolden(t, "transcript_viewport", 100, out)
}

func TestTranscriptContent(t *testing.T) {
	tr := NewTranscript(noColorTheme)
	tr.SetChat(testChat(), mcpCustomizations())
	out := ansi.Strip(tr.Render(100, 300, 0, TranscriptOptions{}))
	for _, want := range []string{
		"You", "Why does login fail", "▸ Reasoning (18 words)", "session cookie", "__Host-sid",
		"tokens: 12,345 in · 678 out · 9,000 cached · gpt-test",
		"✗ error: the deploy failed; see the tool output (tool_failed)", "ℹ Background job lint finished.",
		"⊘ turn cancelled", "✓ Input given", "Deploy service · deploy-server",
		"▸ Reasoning (10 words)", "Summary", "The deploy is still bl", "◐ Writing the summary",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if strings.Contains(out, "old cookies are ignored and the user looks") {
		t.Error("collapsed reasoning shows its text")
	}
	blocked := testChat()
	blocked.Status = protocol.SessionStatusInputNeeded
	tr.SetChat(blocked, nil)
	if out := ansi.Strip(tr.Render(100, 300, 0, TranscriptOptions{})); !strings.Contains(out, "◆ waiting for you · ! next needing you") {
		t.Errorf("a blocked chat does not say it waits for the user:\n%s", out)
	}
	tr.SetChat(testChat(), mcpCustomizations())
	out = ansi.Strip(tr.Render(100, 300, 0, TranscriptOptions{Expanded: map[string]bool{"r1": true}}))
	if !strings.Contains(out, "▾ Reasoning") || !strings.Contains(out, "old cookies are ignored and the user looks") {
		t.Errorf("expanded reasoning not shown:\n%s", out)
	}
}

// The viewport is exactly the slice of the whole transcript it claims to
// be, for every scroll offset, including past the top.
func TestTranscriptViewport(t *testing.T) {
	tr := NewTranscript(colorTheme)
	tr.SetChat(testChat(), mcpCustomizations())
	opts := TranscriptOptions{}
	total := tr.TotalLines(80, opts)
	all := strings.Split(tr.Render(80, total, 0, opts), "\n")
	if len(all) != total {
		t.Fatalf("full render has %d lines, TotalLines says %d", len(all), total)
	}
	for _, h := range []int{1, 5, 17, total + 10} {
		for scroll := 0; scroll <= total+3; scroll++ {
			got := strings.Split(tr.Render(80, h, scroll, opts), "\n")
			if len(got) != h {
				t.Fatalf("h=%d scroll=%d: %d lines", h, scroll, len(got))
			}
			s := min(scroll, max(total-h, 0))
			end := total - s
			start := max(0, end-h)
			want := all[start:end]
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("h=%d scroll=%d line %d: got %q want %q", h, scroll, i, ansi.Strip(got[i]), ansi.Strip(want[i]))
				}
			}
			for i := len(want); i < h; i++ {
				if got[i] != "" {
					t.Fatalf("h=%d scroll=%d: padding line %d not empty", h, scroll, i)
				}
			}
		}
	}
}

// Rendering with warm caches, after options changed back and forth, gives
// what a fresh Transcript gives.
func TestTranscriptCacheConsistency(t *testing.T) {
	chat := testChat()
	optsList := []TranscriptOptions{
		{},
		{SelectedToolCall: "tc-6"},
		{Expanded: map[string]bool{"tc-6": true, "r1": true}},
		{Grant: map[string]GrantView{"tc-2": {Phase: GrantOffered, Resource: "https://x"}}},
		{SelectedToolCall: "tc-7", Expanded: map[string]bool{"tc-7": true}},
	}
	warm := NewTranscript(colorTheme)
	warm.SetChat(chat, mcpCustomizations())
	for round := 0; round < 2; round++ {
		for i, opts := range optsList {
			for _, w := range []int{60, 100} {
				fresh := NewTranscript(colorTheme)
				fresh.SetChat(chat, mcpCustomizations())
				if a, b := warm.Render(w, 400, 0, opts), fresh.Render(w, 400, 0, opts); a != b {
					t.Fatalf("round %d opts %d w=%d: warm cache differs from fresh render", round, i, w)
				}
			}
		}
	}
	// A changed server name reaches cached cards.
	renamed := mcpCustomizations()
	renamed[1] = protocol.NewCustomization(protocol.PluginCustomization{ID: "plugin-ops", Name: "ops", Children: []protocol.ChildCustomization{
		protocol.NewChildCustomization(mcpServer("mcp-deploy", "deployer-v2", true, protocol.McpServerReadyState{}))}})
	warm.SetChat(chat, renamed)
	if out := ansi.Strip(warm.Render(100, 400, 0, TranscriptOptions{})); !strings.Contains(out, "deployer-v2") {
		t.Error("renamed MCP server not shown on cached cards")
	}
}

// Streaming delta by delta gives, at every step, what a fresh render of the
// same snapshot gives, and never changes the chat it is handed.
func TestTranscriptStreamingMatchesFresh(t *testing.T) {
	chat := testChat()
	full := "## Plan\n\nFirst **read** the code.\n\n- one\n- two\n\n```go\nfunc f() {}\n```\n\nThen write the fix and test it. Done."
	tr := NewTranscript(noColorTheme)
	text := protocol.Text{}
	for i := 0; i < len(full); i += 5 {
		text = text.Append(full[i:min(i+5, len(full))])
		at := *chat.ActiveTurn
		at.ResponseParts = []protocol.ResponsePart{at.ResponseParts[0], protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: "m4", Content: text})}
		c := chat
		c.ActiveTurn = &at
		before, _ := json.Marshal(c)
		tr.SetChat(c, nil)
		got := tr.Render(70, 40, 0, TranscriptOptions{})
		fresh := NewTranscript(noColorTheme)
		fresh.SetChat(c, nil)
		if want := fresh.Render(70, 40, 0, TranscriptOptions{}); got != want {
			t.Fatalf("after %d bytes: streamed frame differs from a fresh render\n--- got\n%s\n--- want\n%s", i, got, want)
		}
		after, _ := json.Marshal(c)
		if string(before) != string(after) {
			t.Fatal("Render changed the chat")
		}
	}
	// The turn completes: it moves to Turns and renders from the finished path.
	c := chat
	c.Turns = append(append([]protocol.Turn(nil), chat.Turns...), protocol.Turn{ID: "t4", Message: chat.ActiveTurn.Message,
		ResponseParts: []protocol.ResponsePart{mdPart("m4", full)}, State: protocol.TurnStateComplete})
	c.ActiveTurn = nil
	tr.SetChat(c, nil)
	if out := ansi.Strip(tr.Render(70, 40, 0, TranscriptOptions{})); !strings.Contains(out, "Then write the fix") || strings.Contains(out, "◐") {
		t.Errorf("completed turn not shown as finished:\n%s", out)
	}
}

func TestTranscriptLocateToolCall(t *testing.T) {
	tr := NewTranscript(noColorTheme)
	tr.SetChat(testChat(), mcpCustomizations())
	opts := TranscriptOptions{SelectedToolCall: "tc-6"}
	ids := tr.ToolCallIDs()
	if strings.Join(ids, ",") != "tc-6,tc-7,tc-2" {
		t.Fatalf("ToolCallIDs = %v", ids)
	}
	total := tr.TotalLines(90, opts)
	all := strings.Split(ansi.Strip(tr.Render(90, total, 0, opts)), "\n")
	for _, id := range ids {
		top, h, ok := tr.LocateToolCall(90, opts, id)
		if !ok || h < 3 {
			t.Fatalf("%s: not found (top=%d h=%d)", id, top, h)
		}
		if !strings.HasPrefix(strings.TrimSpace(all[top]), "╭") && !strings.HasPrefix(strings.TrimSpace(all[top]), "┏") {
			t.Errorf("%s: line %d is not the card's top border: %q", id, top, all[top])
		}
		if fromEnd, h2, ok := tr.LocateToolCallFromEnd(90, opts, id); !ok || fromEnd != total-top || h2 != h {
			t.Errorf("%s: LocateToolCallFromEnd = %d, %d, %v; want %d, %d (total %d, top %d)", id, fromEnd, h2, ok, total-top, h, total, top)
		}
		scroll, ok := tr.ScrollToToolCall(90, 10, opts, id)
		if !ok {
			t.Fatal("ScrollToToolCall failed")
		}
		view := strings.Split(ansi.Strip(tr.Render(90, 10, scroll, opts)), "\n")
		found := false
		for _, l := range view {
			if l == all[top] {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: card top not in the viewport at scroll %d", id, scroll)
		}
	}
	if _, _, ok := tr.LocateToolCall(90, opts, "nope"); ok {
		t.Error("found a tool call that does not exist")
	}
	if _, _, ok := tr.LocateToolCallFromEnd(90, opts, "nope"); ok {
		t.Error("found from the end a tool call that does not exist")
	}
}

func TestTranscriptHostile(t *testing.T) {
	evil := "\x1b]52;c;cm0gLXJmIC8=\x07\x1b[2J\x1b[31mred\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\\r\u202eover\x9b1m"
	chat := protocol.ChatState{
		Turns: []protocol.Turn{{ID: "t", Message: userMsg(evil), State: protocol.TurnStateError,
			Usage: &protocol.UsageInfo{Model: ptr(evil)},
			ResponseParts: []protocol.ResponsePart{
				mdPart("m", "# "+evil+"\n\n"+evil+" [x]("+evil+")\n\n```\n"+evil+"\n```"),
				protocol.NewResponsePart(protocol.ReasoningResponsePart{ID: "r", Content: protocol.NewText(evil)}),
				protocol.NewResponsePart(protocol.SystemNotificationResponsePart{Content: protocol.MarkdownString(evil)}),
				protocol.NewResponsePart(protocol.ResourceResponsePart{URI: evil, ContentType: ptr(evil)}),
				toolPart(protocol.NewToolCallState(protocol.ToolCallCompletedState{ToolCallID: "x", ToolName: evil, DisplayName: evil,
					InvocationMessage: protocol.PlainString(evil), Success: true, PastTenseMessage: protocol.PlainString(evil),
					Content: textResult(evil), Contributor: mcpContrib("evil-server")})),
				protocol.NewResponsePart(protocol.UnknownResponsePart{Discriminator: evil}),
				protocol.NewResponsePart(protocol.ErrorResponsePart{Error: protocol.ErrorInfo{ErrorType: evil, Message: evil}, Resumable: ptr(true)}),
			}}},
		ActiveTurn: &protocol.ActiveTurn{ID: "a", Message: userMsg(evil), ResponseParts: []protocol.ResponsePart{mdPart("s", evil)}},
		Activity:   ptr(evil),
	}
	custom := []protocol.Customization{protocol.NewCustomization(mcpServer("evil-server", evil, true, protocol.McpServerReadyState{}))}
	for _, th := range []Theme{noColorTheme, colorTheme} {
		for _, w := range goldenWidths {
			tr := NewTranscript(th)
			tr.SetChat(chat, custom)
			opts := TranscriptOptions{Expanded: map[string]bool{"r": true}}
			out := tr.Render(w, tr.TotalLines(w, opts), 0, opts)
			checkScreen(t, th, out, w)
			plain := ansi.Strip(out)
			for _, bad := range []string{"52;c", "]8;", "[2J", "[31m"} {
				if strings.Contains(plain, bad) {
					t.Fatalf("noColor=%v w=%d: payload %q visible", th.NoColor, w, bad)
				}
			}
			if th.NoColor {
				checkGolden(t, "transcript_hostile", w, out)
			}
		}
	}
}

func TestTranscriptWidths(t *testing.T) {
	chat := testChat()
	for _, th := range []Theme{noColorTheme, colorTheme} {
		tr := NewTranscript(th)
		tr.SetChat(chat, mcpCustomizations())
		for w := 20; w <= 250; w += 13 {
			checkScreen(t, th, tr.Render(w, 300, 0, TranscriptOptions{SelectedToolCall: "tc-2", Expanded: map[string]bool{"r1": true, "tc-6": true}}), w)
		}
	}
}

func TestTranscriptEmpty(t *testing.T) {
	tr := NewTranscript(noColorTheme)
	if got := tr.Render(40, 3, 0, TranscriptOptions{}); got != "\n\n" {
		t.Errorf("empty transcript = %q, want 3 empty lines", got)
	}
	if tr.TotalLines(40, TranscriptOptions{}) != 0 {
		t.Error("empty transcript has lines")
	}
	if tr.Render(0, 10, 0, TranscriptOptions{}) != "" {
		t.Error("zero width must render nothing")
	}
}

func TestTranscriptWarm(t *testing.T) {
	chat := benchChat(30)
	tr := NewTranscript(noColorTheme)
	tr.SetChat(chat, nil)
	calls := 0
	for !tr.Warm(80, TranscriptOptions{}, 7) {
		calls++
		if calls > 10 {
			t.Fatal("Warm never finished")
		}
	}
	if calls != 4 { // 30 turns, 7 per call: 7+7+7+7 then 2 and done
		t.Errorf("Warm took %d unfinished calls, want 4", calls)
	}
	for i := range chat.Turns {
		if !tr.cached(&chat.Turns[i], 80, TranscriptOptions{}) {
			t.Fatalf("turn %d not cached after Warm", i)
		}
	}
	fresh := NewTranscript(noColorTheme)
	fresh.SetChat(chat, nil)
	if tr.TotalLines(80, TranscriptOptions{}) != fresh.TotalLines(80, TranscriptOptions{}) {
		t.Error("warmed transcript measures differently")
	}
}

// Moving the selection onto a card in a finished turn redraws that card
// only: the turn's user message, reasoning and markdown keep the lines they
// had (the same backing array), and the card's lines change.
func TestTranscriptSelectionReusesParts(t *testing.T) {
	chat := testChat()
	tr := NewTranscript(colorTheme)
	tr.SetChat(chat, mcpCustomizations())
	before := tr.Render(100, 400, 0, TranscriptOptions{})
	r0 := tr.turns["t1"]
	if r0 == nil || len(r0.parts) != 3 {
		t.Fatalf("turn t1 not cached with its 3 parts: %+v", r0)
	}
	old := append([]partLines(nil), r0.parts...)
	oldUser := r0.userLns
	opts := TranscriptOptions{SelectedToolCall: "tc-6"}
	after := tr.Render(100, 400, 0, opts)
	if before == after {
		t.Fatal("selecting a card did not change the frame")
	}
	r1 := tr.turns["t1"]
	if r1 == r0 {
		t.Fatal("turn t1 was not rebuilt for the new selection")
	}
	same := func(a, b []string) bool { return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0] }
	if !same(oldUser, r1.userLns) {
		t.Error("user message re-rendered")
	}
	for i := 0; i < 2; i++ {
		if !same(old[i].lines, r1.parts[i].lines) {
			t.Errorf("part %d (%s) re-rendered", i, old[i].part.Kind())
		}
	}
	if same(old[2].lines, r1.parts[2].lines) {
		t.Error("the newly selected card kept its unselected lines")
	}
	fresh := NewTranscript(colorTheme)
	fresh.SetChat(chat, mcpCustomizations())
	if want := fresh.Render(100, 400, 0, opts); after != want {
		t.Error("reused parts differ from a fresh render")
	}
}

// An input request holding the selection is framed like a selected card
// and, while it waits, names the keys that answer or decline it; it can be
// located like a card so the UI scrolls to it. Unselected it is unchanged.
func TestTranscriptSelectedInputRequest(t *testing.T) {
	chat := testChat()
	chat.ActiveTurn.ResponseParts = append(chat.ActiveTurn.ResponseParts,
		protocol.NewResponsePart(protocol.InputRequestResponsePart{Request: testInputRequest()}))
	for _, w := range goldenWidths {
		tr := NewTranscript(noColorTheme)
		tr.SetChat(chat, mcpCustomizations())
		plain := ansi.Strip(tr.Render(w, 400, 0, TranscriptOptions{}))
		opts := TranscriptOptions{SelectedToolCall: "req-1"}
		fromEnd, h, ok := tr.LocateToolCallFromEnd(w, opts, "req-1")
		if !ok || h < 4 {
			t.Fatalf("w=%d: selected input request not located (h=%d ok=%v)", w, h, ok)
		}
		total := tr.TotalLines(w, opts)
		all := strings.Split(tr.Render(w, total, 0, opts), "\n")
		card := strings.Join(all[total-fromEnd:total-fromEnd+h], "\n")
		checkScreen(t, noColorTheme, card, w)
		checkGolden(t, "transcript_input_selected", w, card)
		got := ansi.Strip(card)
		for _, want := range []string{"┏", "◆ Input requested", "Environment", "answer", "decline", "┗"} {
			if !strings.Contains(got, want) {
				t.Errorf("w=%d: selected input request lacks %q:\n%s", w, want, got)
			}
		}
		if strings.Count(ansi.Strip(strings.Join(all, "\n")), "┏") <= strings.Count(plain, "┏") {
			t.Errorf("w=%d: selecting the input request drew no frame", w)
		}
		// The answered request of turn t3 is selectable too, without keys.
		opts.SelectedToolCall = "req-1"
		chat2 := testChat()
		tr2 := NewTranscript(noColorTheme)
		tr2.SetChat(chat2, nil)
		if _, _, ok := tr2.LocateToolCallFromEnd(w, opts, "req-1"); !ok {
			t.Errorf("w=%d: answered input request not located", w)
		}
		if out := ansi.Strip(tr2.Render(w, 400, 0, opts)); strings.Contains(out, "answer · ") {
			t.Errorf("w=%d: an answered request offers to answer it:\n%s", w, out)
		}
	}
}

// ClampScroll stops at the offset that shows the first line at the top,
// and leaves an offset inside the transcript alone.
func TestTranscriptClampScroll(t *testing.T) {
	tr := NewTranscript(noColorTheme)
	tr.SetChat(testChat(), mcpCustomizations())
	opts := TranscriptOptions{}
	const w, h = 80, 10
	top := tr.TotalLines(w, opts) - h
	if top <= 2 {
		t.Fatalf("the test chat is %d lines, too short to scroll", top+h)
	}
	for _, tc := range []struct{ in, want int }{{-3, 0}, {0, 0}, {1, 1}, {top, top}, {top + 1, top}, {1 << 30, top}} {
		if got := tr.ClampScroll(w, h, tc.in, opts); got != tc.want {
			t.Errorf("ClampScroll(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestAttachmentsListed: a message's attachments show their label, kind
// and size without their content being fetched: a resource's size is the
// host's hint, an embedded one's its decoded length; a hostile label
// stays inert (issue 23, messages).
func TestAttachmentsListed(t *testing.T) {
	chat := testChat()
	size, ct, shot := int64(2048), "text/x-go", "screenshot"
	chat.Turns[0].Message.Attachments = []protocol.MessageAttachment{
		protocol.NewMessageAttachment(protocol.MessageResourceAttachment{Label: "main.go", URI: "file:///src/main.go", SizeHint: &size, ContentType: &ct}),
		protocol.NewMessageAttachment(protocol.MessageEmbeddedResourceAttachment{Label: "shot.png\x1b]0;pwned\x07", Data: "aGVsbG8=", ContentType: "image/png", DisplayKind: &shot}),
		protocol.NewMessageAttachment(protocol.MessageChatAttachment{Label: "Side chat", Resource: "ahp-chat://x"}),
	}
	tr := NewTranscript(noColorTheme)
	tr.SetChat(chat, nil)
	raw := tr.Render(100, 300, 0, TranscriptOptions{})
	out := ansi.Strip(raw)
	for _, want := range []string{"📎 main.go · text/x-go · 2.0 KiB", "📎 shot.png · screenshot · 5 B", "📎 Side chat · chat"} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(raw, "\x1b]0;") {
		t.Error("an attachment label's escape sequence reached the screen")
	}
}

// TestReferenceAttachmentSaysHowToRead: an attachment that is a reference
// (a ContentRef, read only on request) names the key that reads it, from
// the keymap, on its line where it fits and on the next where not; an
// attachment carried inline gets no such hint (issue 23, messages).
func TestReferenceAttachmentSaysHowToRead(t *testing.T) {
	chat := testChat()
	size, ct := int64(2048), "text/x-go"
	chat.Turns[0].Message.Attachments = []protocol.MessageAttachment{
		protocol.NewMessageAttachment(protocol.MessageResourceAttachment{Label: "main.go", URI: "file:///src/main.go", SizeHint: &size, ContentType: &ct}),
		protocol.NewMessageAttachment(protocol.MessageEmbeddedResourceAttachment{Label: "shot.png", Data: "aGVsbG8=", ContentType: "image/png"}),
	}
	read := keymap.DefaultKeyMap().Chat.Resources.Help().Key + " reads it"
	tr := NewTranscript(noColorTheme)
	tr.SetChat(chat, nil)
	out := ansi.Strip(tr.Render(100, 300, 0, TranscriptOptions{}))
	if !strings.Contains(out, "📎 main.go · text/x-go · 2.0 KiB · "+read) {
		t.Errorf("the reference does not say how to read it:\n%s", out)
	}
	if strings.Count(out, read) != 1 {
		t.Errorf("the hint is not on the reference alone:\n%s", out)
	}
	narrow := ansi.Strip(tr.Render(34, 300, 0, TranscriptOptions{}))
	lines := strings.Split(narrow, "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "📎 main.go") })
	if i < 0 || i+1 >= len(lines) || !strings.Contains(lines[i+1], read) {
		t.Errorf("at 34 columns the hint is not on the next line:\n%s", narrow)
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > 34 {
			t.Errorf("line wider than 34: %q", l)
		}
	}
}
