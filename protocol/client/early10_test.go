package client_test

import (
	"fmt"
	"testing"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/internal/testhost"
)

// The reason VS Code 1.135 (code-server 4.135.0) gives for a failed turn,
// on a host that negotiated "1.0.0" but spells turn errors as 0.8 did.
const early10Reason = "Session was not created with authentication info. Sign in and create a new session."

// TestEarly10TurnErrorsAreRead: a host that claims 1.0 but sends
// chat/error with `error` (no `part`) and a turn with `error` (no error
// part) has its reason kept: each becomes the 1.0 error part, message and
// type intact, never resumable. A frame in the 1.0 shape is read as 1.0
// even with a stray `error` beside it, so nothing is shown twice.
func TestEarly10TurnErrorsAreRead(t *testing.T) {
	h := newHost(t, testhost.Options{Versions: []string{"1.0.0"}})
	c := dial(t, h, nil)
	if c.ProtocolVersion() != "1.0.0" {
		t.Fatalf("negotiated %s", c.ProtocolVersion())
	}
	subscribe(t, c, chatURI)
	h.Inject(chatURI, protocol.NewStateAction(protocol.ChatTurnStartedAction{TurnID: "t1",
		StartedAt: "2026-01-01T00:00:00Z", Message: userMsg("hi")}))
	waitUntil(t, c, "the turn started", func() bool {
		ch, _ := c.Chat(chatURI)
		return ch.ActiveTurn != nil
	})

	send := func(action string) {
		seq := c.LastSeenServerSeq() + 1
		h.SendRaw(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"action","params":{"channel":%q,"serverSeq":%d,"action":%s}}`, chatURI, seq, action))
		waitUntil(t, c, "the action applied", func() bool { return c.LastSeenServerSeq() == seq })
	}
	// chat/error, 0.8 spelling.
	send(`{"type":"chat/error","turnId":"t1","duration":5,"error":{"errorType":"authRequired","message":"` + early10Reason + `"}}`)
	ch, _ := c.Chat(chatURI)
	if len(ch.Turns) != 1 || ch.Turns[0].State != protocol.TurnStateError {
		t.Fatalf("turns after chat/error: %+v", ch.Turns)
	}
	checkErrorParts(t, "chat/error with error", ch.Turns[0], "authRequired")

	// chat/turnsLoaded with a turn carrying `error`, and one carrying
	// both (the 1.0 part wins; the stray error is not a second part).
	send(`{"type":"chat/turnsLoaded","turns":[` +
		`{"id":"t0","message":{"text":"earlier","origin":{"kind":"user"}},"responseParts":[],"state":"error","error":{"errorType":"quota","message":"` + early10Reason + `"}},` +
		`{"id":"tb","message":{"text":"both","origin":{"kind":"user"}},"responseParts":[{"kind":"error","error":{"errorType":"quota","message":"` + early10Reason + `"}}],"state":"error","error":{"errorType":"other","message":"stray"}}` +
		`]}`)
	ch, _ = c.Chat(chatURI)
	if len(ch.Turns) != 3 {
		t.Fatalf("turns after turnsLoaded: %d", len(ch.Turns))
	}
	checkErrorParts(t, "loaded turn with error", ch.Turns[0], "quota")
	checkErrorParts(t, "loaded turn with both", ch.Turns[1], "quota")

	// A 1.0 chat/error with a stray `error` keeps its part.
	send(`{"type":"chat/turnStarted","turnId":"t2","startedAt":"2026-01-01T00:01:00Z","message":{"text":"again","origin":{"kind":"user"}}}`)
	send(`{"type":"chat/error","turnId":"t2","duration":5,"part":{"kind":"error","error":{"errorType":"overloaded","message":"` + early10Reason + `"},"resumable":true},"error":{"errorType":"other","message":"stray"}}`)
	ch, _ = c.Chat(chatURI)
	last := ch.Turns[len(ch.Turns)-1]
	checkErrorParts(t, "1.0 chat/error with a stray error", last, "overloaded")
	if p := last.ResponseParts[len(last.ResponseParts)-1].Variant.(protocol.ErrorResponsePart); p.Resumable == nil || !*p.Resumable {
		t.Errorf("the 1.0 part lost resumable: %+v", p)
	}
	if c.Status() != client.StatusReady {
		t.Errorf("status %v", c.Status())
	}
}

// checkErrorParts: the turn ends with exactly one error part, carrying the
// early-1.0 reason and errType.
func checkErrorParts(t *testing.T, what string, turn protocol.Turn, errType string) {
	t.Helper()
	var errs []protocol.ErrorResponsePart
	for _, p := range turn.ResponseParts {
		if e, ok := p.Variant.(protocol.ErrorResponsePart); ok {
			errs = append(errs, e)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("%s: %d error parts in %+v", what, len(errs), turn.ResponseParts)
	}
	if e := errs[0]; e.Error.Message != early10Reason || e.Error.ErrorType != errType || e.Kind != "error" {
		t.Errorf("%s: error part %+v", what, e)
	}
}
