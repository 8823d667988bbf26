package demohost_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/schemacheck"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// TestSessionConfigCommandsEveryVersion: resolveSessionConfig and
// sessionConfigCompletions go through the real client at every version
// the demo host serves (each defines both commands; an older wire is
// converted at the client's edge), every frame schema-checked: the
// dynamic base branch is completed from what is typed, and the values
// chosen are what the session is created with (issue 26).
func TestSessionConfigCommandsEveryVersion(t *testing.T) {
	for _, version := range []string{demohost.Version10, demohost.Version08, demohost.Version07, demohost.Version06} {
		t.Run("ahp-"+version, func(t *testing.T) {
			if !slices.Contains(client.SupportedProtocolVersions, version) {
				t.Skipf("this build's client does not offer %s", version)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var validate func([]byte) error
			if w := protocol.WireOf(version); w != protocol.Wire08 { // no 0.8.0 schema to check against
				validate = schemacheck.MustForWire(t, w).ValidateMessage
			}
			h, err := demohost.Start(ctx, demohost.Config{StepDelay: -1, Validate: validate, Version: version})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = h.Close()
				for _, fe := range h.ValidationErrors() {
					t.Errorf("invalid frame: %v", fe)
				}
			})
			c, err := client.Dial(ctx, client.Options{URL: h.URL(), ClientID: "cfg-7c2d-client"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			provider := demohost.Provider
			res, err := c.ResolveSessionConfig(ctx, protocol.ResolveSessionConfigParams{Provider: &provider})
			if err != nil {
				t.Fatalf("resolveSessionConfig: %v", err)
			}
			p, ok := res.Schema.Properties[demohost.ConfigBaseBranch]
			if !ok || p.EnumDynamic == nil || !*p.EnumDynamic {
				t.Fatalf("the base branch is not dynamic: %+v", p)
			}
			query := "REL"
			got, err := c.SessionConfigCompletions(ctx, protocol.SessionConfigCompletionsParams{
				Provider: &provider, Property: demohost.ConfigBaseBranch, Query: &query, Config: res.Values})
			if err != nil {
				t.Fatalf("sessionConfigCompletions: %v", err)
			}
			var values []string
			for _, it := range got.Items {
				values = append(values, it.Value)
			}
			if !slices.Equal(values, []string{"release/1.0", "release/1.1"}) {
				t.Fatalf("completions for %q: %v", query, values)
			}
			if _, err := c.SessionConfigCompletions(ctx, protocol.SessionConfigCompletionsParams{
				Provider: &provider, Property: demohost.ConfigIsolation}); err == nil {
				t.Fatal("completions for a static setting did not fail")
			}
			cfg := res.Values
			cfg[demohost.ConfigBaseBranch] = json.RawMessage(`"release/1.1"`)
			cfg[demohost.ConfigMaxToolCalls] = json.RawMessage(`7`)
			uri := "ahp-session:/cfg-" + version
			if err := c.CreateSession(ctx, protocol.CreateSessionParams{Channel: uri, Provider: &provider, Config: cfg}); err != nil {
				t.Fatalf("createSession: %v", err)
			}
			if err := c.Subscribe(ctx, uri); err != nil {
				t.Fatal(err)
			}
			s, _ := c.Session(uri)
			if s.Config == nil || string(s.Config.Values[demohost.ConfigBaseBranch]) != `"release/1.1"` || string(s.Config.Values[demohost.ConfigMaxToolCalls]) != "7" {
				t.Fatalf("the session's config: %+v", s.Config)
			}
			// A value the host does not complete, or a number of the
			// wrong kind, is refused.
			for _, bad := range []map[string]json.RawMessage{
				{demohost.ConfigBaseBranch: json.RawMessage(`"nope"`)},
				{demohost.ConfigMaxToolCalls: json.RawMessage(`"7"`)},
				{demohost.ConfigMaxToolCalls: json.RawMessage(`2.5`)},
			} {
				if _, err := c.ResolveSessionConfig(ctx, protocol.ResolveSessionConfigParams{Provider: &provider, Config: bad}); err == nil {
					t.Errorf("resolveSessionConfig took %v", bad)
				}
			}
		})
	}
}
