package client_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/internal/testhost"
)

// What a version does not define, from ../shared/ahp-1.0/DELTA.md, written
// out here rather than read from the client so the test judges it: the
// members a client may send that came later, and the action types and
// commands that came later.
type versionRules struct {
	members  map[string][]string // method or action type → members it lacks
	actions  map[string]bool     // action types it lacks
	commands map[string]bool     // commands it lacks
}

// after09 is what 1.0 added to client frames (DELTA §2.7, §3.1, §6.4, §7.7).
var after09 = versionRules{
	members: map[string][]string{"authenticate": {"expiresIn"}},
	actions: map[string]bool{
		"session/mcpServerBackgroundRequested": true, "session/chatsReordered": true,
		"chat/isReadChanged": true, "chat/isArchivedChanged": true, "chat/movableChanged": true,
		"chat/backgroundWorkSet": true, "chat/backgroundWorkRemoved": true, "chat/changesetsChanged": true,
		"chat/canvasesChanged": true, "canvas/stateChanged": true,
	},
	commands: map[string]bool{"moveChat": true},
}

// rulesOf is what the frames of a connection that negotiated version must
// leave out. 0.6 lacks, besides 1.0's additions, what 0.7–0.9 added to the
// frames a client sends (DELTA §2.5, §2.6, §3.1, §6.4, §7.7).
func rulesOf(version string) versionRules {
	switch version {
	case "1.0.0":
		return versionRules{}
	case "0.6.0":
		r := versionRules{members: map[string][]string{
			"authenticate":  {"expiresIn", "_meta"},
			"createSession": {"workingDirectories", "_meta"},
			"createChat":    {"workingDirectories", "_meta"},
		}, actions: map[string]bool{"chat/turnResume": true, "session/workingDirectorySet": true,
			"session/workingDirectoryRemoved": true, "session/workingDirectoryReplaced": true,
			"chat/workingDirectorySet": true, "chat/workingDirectoryRemoved": true}, commands: after09.commands}
		for k := range after09.actions {
			r.actions[k] = true
		}
		return r
	}
	return after09 // 0.9.0 and VS Code's 0.10.0
}

// checkClientFrames fails the test for every frame the host received that
// carries a member, action or command the negotiated version lacks.
func checkClientFrames(t *testing.T, version string, frames []testhost.Frame) {
	t.Helper()
	rules := rulesOf(version)
	for _, f := range frames {
		if f.Method == "" || f.Method == "initialize" {
			continue
		}
		if rules.commands[f.Method] {
			t.Errorf("AHP %s: sent command %s, which it does not define", version, f.Method)
		}
		var frame struct {
			Params map[string]json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(f.Raw, &frame); err != nil {
			t.Errorf("AHP %s: frame %s does not decode: %v", version, f.Method, err)
			continue
		}
		lacks := func(what string, obj map[string]json.RawMessage) {
			for _, m := range rules.members[what] {
				if _, ok := obj[m]; ok {
					t.Errorf("AHP %s: %s carries %q, which the version does not define: %s", version, what, m, f.Raw)
				}
			}
		}
		lacks(f.Method, frame.Params)
		if f.Method != "dispatchAction" {
			continue
		}
		var action map[string]json.RawMessage
		if err := json.Unmarshal(frame.Params["action"], &action); err != nil {
			t.Errorf("AHP %s: dispatched action does not decode: %v", version, err)
			continue
		}
		var kind string
		_ = json.Unmarshal(action["type"], &kind)
		if rules.actions[kind] {
			t.Errorf("AHP %s: dispatched %s, which the version does not define", version, kind)
		}
		lacks(kind, action)
	}
}

// TestEveryFrameFitsTheVersion runs what the client sends (authenticate
// with a known lifetime, an approval that picks an option, the actions 1.0
// added) against each kind of host over a real WebSocket and checks every
// frame the host received against the negotiated version's rules: a 0.9
// or 0.10 host is sent nothing 1.0 added, a 0.6 host nothing 0.7 on added.
func TestEveryFrameFitsTheVersion(t *testing.T) {
	for _, vh := range versionHosts {
		t.Run(vh.name, func(t *testing.T) {
			h := newHost(t, testhost.Options{Versions: vh.accepts})
			c := dial(t, h, nil)
			subscribe(t, c, sessionURI)
			subscribe(t, c, chatURI)

			if err := c.Authenticate(ctxT(t), mcpResource, "tok-1", []string{"repo"}, time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Dispatch(chatURI, protocol.NewStateAction(protocol.ChatToolCallApprovedAction{TurnID: "t1", ToolCallID: "tc1",
				Confirmed: protocol.ToolCallConfirmationReasonUserAction, SelectedOptionID: ptr("allow-session")})); err != nil {
				t.Fatal(err)
			}
			for _, a := range []protocol.StateActionVariant{
				protocol.SessionMcpServerBackgroundRequestedAction{ID: mcpServerID},
			} {
				_, err := c.Dispatch(sessionURI, protocol.NewStateAction(a))
				defined := !rulesOf(vh.version).actions[protocol.NewStateAction(a).Kind()]
				if (err == nil) != defined || (err != nil && !errors.Is(err, client.ErrNotInVersion)) {
					t.Errorf("Dispatch(%s) = %v, want sent %v (else ErrNotInVersion)", protocol.NewStateAction(a).Kind(), err, defined)
				}
			}
			// Every command the client has, with what each may carry.
			if _, err := c.ListSessions(ctxT(t)); err != nil {
				t.Fatal(err)
			}
			provider := "test"
			if err := c.CreateSession(ctxT(t), protocol.CreateSessionParams{Channel: "ahp-session:/s2", Provider: &provider,
				WorkingDirectories: []protocol.URI{"file:///w"}}); err != nil {
				t.Fatal(err)
			}
			if err := c.CreateChat(ctxT(t), protocol.CreateChatParams{Channel: sessionURI, Chat: "ahp-chat:/c2"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.FetchTurns(ctxT(t), protocol.FetchTurnsParams{Channel: chatURI}); err != nil {
				t.Fatal(err)
			}
			if err := c.DisposeSession(ctxT(t), "ahp-session:/s2"); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, c, "the dispatches echoed", func() bool {
				return c.PendingCount(chatURI) == 0 && c.PendingCount(sessionURI) == 0
			})
			// A reconnect re-pushes the token: that frame is judged too.
			n := len(h.AuthCalls())
			h.DropConnections()
			waitEvent(t, c, func(e client.ConnectionEvent) bool { return e.Status == client.StatusReady })
			if len(h.AuthCalls()) != n+1 {
				t.Fatalf("authenticate calls = %d after the reconnect, want %d", len(h.AuthCalls()), n+1)
			}
			checkClientFrames(t, vh.version, h.Frames())
		})
	}
}
