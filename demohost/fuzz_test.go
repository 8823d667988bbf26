package demohost

import (
	"context"
	"testing"

	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/protocol"
)

// FuzzClientFrames sends a host, over either version it serves, one
// arbitrary frame from an initialized client watching the demo session
// and chat. Whatever the frame, the host must go on answering (a ping
// after it gets its answer) and every frame it sends, but the rejection
// echo that repeats an arbitrary action, must pass the served version's
// schema: over 0.6 the frame also crosses the conversion both ways, where
// a hostile one must neither crash the host nor make it say something the
// old wire cannot.
func FuzzClientFrames(f *testing.F) {
	as, err := authserver.Start(context.Background(), authserver.Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = as.Close() })
	for _, seed := range []string{
		`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-chat://default/YWhwLXNlc3Npb246L2RlbW8","clientSeq":1,"action":{"type":"chat/turnStarted","turnId":"t1","startedAt":"2026-01-01T00:00:00.000Z","message":{"text":"resume","origin":{"kind":"user"}}}}}`,
		`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-session:/demo","clientSeq":1,"action":{"type":"session/customizationToggled","id":"plugin-devtools","enabled":false}}}`,
		`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-session:/demo","clientSeq":1,"action":{"type":"session/customizationToggled","id":"mcp-filesystem","enablement":[{"kind":"session","enabled":false}]}}}`,
		`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-chat://default/YWhwLXNlc3Npb246L2RlbW8","clientSeq":1,"action":{"type":"chat/turnResume","turnId":"t1"}}}`,
		`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-session:/demo","clientSeq":1,"action":{"type":"session/mcpServerBackgroundRequested","id":"mcp-indexer"}}}`,
		`{"jsonrpc":"2.0","id":50,"method":"createSession","params":{"channel":"ahp-session:/f","workingDirectory":"file:///w","workingDirectories":["file:///v"]}}`,
		`{"jsonrpc":"2.0","id":51,"method":"createChat","params":{"channel":"ahp-session:/demo","chat":"ahp-chat://f/YWhwLXNlc3Npb246L2RlbW8","source":{"chat":"ahp-chat://default/YWhwLXNlc3Npb246L2RlbW8","turnId":"x"}}}`,
		`{"jsonrpc":"2.0","id":52,"method":"createChat","params":{"channel":"ahp-session:/demo","chat":"ahp-chat://g/YWhwLXNlc3Npb246L2RlbW8","source":{"kind":"sideChat","chat":"ahp-chat://default/YWhwLXNlc3Npb246L2RlbW8","turnId":"x"}}}`,
		`{"jsonrpc":"2.0","id":53,"method":"authenticate","params":{"channel":"ahp-root://","resource":"x","token":"","expiresIn":-1}}`,
		`{"jsonrpc":"2.0","id":54,"method":"reconnect","params":{"channel":"ahp-root://","clientId":"fuzz","lastSeenServerSeq":0,"subscriptions":["ahp-chat://default/YWhwLXNlc3Npb246L2RlbW8"]}}`,
		`{"jsonrpc":"2.0","id":55,"method":"subscribe","params":{"channel":"ahp-chat://default/YWhwLXNlc3Npb246L2RlbW8"}}`,
	} {
		f.Add(false, []byte(seed))
		f.Add(true, []byte(seed))
	}
	f.Fuzz(func(t *testing.T, over06 bool, frame []byte) {
		version := Version10
		if over06 {
			version = Version06
		}
		v := validatorFor(t, version)
		h, err := Start(context.Background(), Config{Auth: as, StepDelay: -1, Version: version, Validate: v.ValidateMessage})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		c := dial(t, h, v, "fuzz")
		// The frame is arbitrary: the client's own checks stay out of it.
		c.noValidate.Store(true)
		c.initialize(rootURI, DemoSessionURI, DemoChatURI)
		c.send(frame)
		// The ping's id must not be one the frame may have used.
		c.mu.Lock()
		c.nextID = 1 << 40
		c.mu.Unlock()
		if r := c.call("ping", protocol.PingParams{Channel: rootURI}); r.Error != nil {
			t.Fatalf("ping after %q: %v", frame, r.Error)
		}
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
		for _, fe := range h.ValidationErrors() {
			// A rejection echo repeats the arbitrary action it refuses.
			if fe.Dir == Outbound && fe.UnknownAction == "" && !fe.Rejected {
				t.Errorf("after %q the host sent an invalid frame: %v", frame, fe)
			}
		}
	})
}
