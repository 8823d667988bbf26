package testhost_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol/internal/testhost"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// captureTB stands in for the test a Host belongs to, so this test can see
// what the Host reports when that test ends.
type captureTB struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (c *captureTB) Helper() {}

func (c *captureTB) Errorf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

func (c *captureTB) Cleanup(f func()) { c.cleanups = append(c.cleanups, f) }

func (c *captureTB) end() []string {
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		c.cleanups[i]()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errs
}

// TestClientResponsesAreSchemaChecked: the client's answer to a host→client
// request is checked against the result $def of the method the host called,
// and a test whose client answers with an invalid result fails.
func TestClientResponsesAreSchemaChecked(t *testing.T) {
	schemas := testhost.SchemaChecks(t)
	for _, tt := range []struct {
		name    string
		result  any
		invalid bool
	}{
		{name: "valid resourceRead result", result: map[string]any{"data": "aGk=", "encoding": "base64"}},
		{name: "resourceRead result without data", result: map[string]any{"encoding": "base64", "bogus": 1}, invalid: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctb := &captureTB{TB: t}
			h := testhost.New(ctb, testhost.Options{Schemas: schemas})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			tr, err := jsonrpc.Dial(ctx, h.URL, jsonrpc.DialOptions{})
			if err != nil {
				t.Fatal(err)
			}
			conn := jsonrpc.NewConn(tr, jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				if req.Method != "resourceRead" {
					return nil, jsonrpc.ErrMethodNotFound
				}
				return tt.result, nil
			}), jsonrpc.ConnOptions{})
			conn.Start(ctx)
			// An answered ping proves the host has registered the connection.
			if err := conn.Call(ctx, "ping", map[string]any{"channel": "ahp-root://"}, nil); err != nil {
				t.Fatalf("ping: %v", err)
			}
			if err := h.CallClient(ctx, "resourceRead", map[string]any{"channel": "ahp-root://", "uri": "file:///a"}); err != nil {
				t.Fatalf("CallClient: %v", err)
			}
			errs := ctb.end()
			if !tt.invalid && len(errs) != 0 {
				t.Errorf("a valid answer was reported: %q", errs)
			}
			if tt.invalid && (len(errs) != 1 || !strings.Contains(errs[0], "response to resourceRead")) {
				t.Errorf("want one report of the invalid response to resourceRead, got %q", errs)
			}
		})
	}
}

// TestFramesAreCheckedByTheNegotiatedWire: the same frame is valid on one
// wire and not on the other, and the host judges it by the version the
// connection negotiated (a 0.6 toggle says enabled, a 1.0 one enablement);
// on 0.6 the host also converts it up before it applies it.
func TestFramesAreCheckedByTheNegotiatedWire(t *testing.T) {
	toggle10 := map[string]any{"type": "session/customizationToggled", "id": "srv",
		"enablement": []any{map[string]any{"kind": "session", "enabled": false}}}
	toggle06 := map[string]any{"type": "session/customizationToggled", "id": "srv", "enabled": false}
	for _, tt := range []struct {
		version string
		action  map[string]any
		invalid bool
	}{
		{"1.0.0", toggle10, false},
		{"1.0.0", toggle06, true},
		{"0.6.0", toggle06, false},
		{"0.6.0", toggle10, true},
	} {
		name := tt.version + "/valid"
		if tt.invalid {
			name = tt.version + "/other-wire-shape"
		}
		t.Run(name, func(t *testing.T) {
			ctb := &captureTB{TB: t}
			h := testhost.New(ctb, testhost.Options{Versions: []string{tt.version}, Schemas: testhost.SchemaChecks(t)})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			tr, err := jsonrpc.Dial(ctx, h.URL, jsonrpc.DialOptions{})
			if err != nil {
				t.Fatal(err)
			}
			conn := jsonrpc.NewConn(tr, nil, jsonrpc.ConnOptions{})
			conn.Start(ctx)
			defer conn.Close()
			var res struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if err := conn.Call(ctx, "initialize", map[string]any{"channel": "ahp-root://", "clientId": "c1",
				"protocolVersions": []string{tt.version}}, &res); err != nil || res.ProtocolVersion != tt.version {
				t.Fatalf("initialize = %+v, %v", res, err)
			}
			if err := conn.Notify(ctx, "dispatchAction", map[string]any{"channel": "ahp-session:/s", "clientSeq": 1,
				"action": tt.action}); err != nil {
				t.Fatal(err)
			}
			if err := h.WaitDispatched(ctx, 1); err != nil {
				t.Fatal(err)
			}
			errs := ctb.end()
			if got := len(errs) > 0; got != tt.invalid {
				t.Errorf("reported %q, want invalid %v", errs, tt.invalid)
			}
			for _, e := range errs {
				if !strings.Contains(e, "dispatchAction") {
					t.Errorf("report %q does not name the frame", e)
				}
			}
		})
	}
}
