package client

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/convert06"
)

// TestOnlyDefinedOn06: on the 0.6 wire an action type 0.6 does not define
// is made unknown (so the mirror ignores it), whatever converting it up
// did; on the 1.0 wire every decoded action stays.
func TestOnlyDefinedOn06(t *testing.T) {
	for _, tt := range []struct {
		action protocol.StateActionVariant
		wire   protocol.Wire
		kept   bool
	}{
		{protocol.SessionTitleChangedAction{Title: "t"}, protocol.Wire06, true},
		{protocol.ChatDeltaAction{TurnID: "t", PartID: "p", Content: "x"}, protocol.Wire06, true},
		{protocol.ChatTurnResumeAction{TurnID: "t"}, protocol.Wire06, false},
		{protocol.SessionMcpServerBackgroundRequestedAction{ID: "m"}, protocol.Wire06, false},
		{protocol.ChatTurnResumeAction{TurnID: "t"}, protocol.Wire10, true},
		{protocol.SessionMcpServerBackgroundRequestedAction{ID: "m"}, protocol.Wire10, true},
	} {
		env := protocol.ActionEnvelope{Action: protocol.NewStateAction(tt.action)}
		kind := env.Action.Kind()
		onlyDefined(tt.wire, &env)
		_, unknown := env.Action.Variant.(protocol.UnknownStateAction)
		if unknown == tt.kept || env.Action.Kind() != kind {
			t.Errorf("%s on %v: kept %v (kind %q), want kept %v", kind, tt.wire, !unknown, env.Action.Kind(), tt.kept)
		}
	}
}

// TestDefined06MatchesTheConversion: for every action type of the 1.0
// schema, the client's "does 0.6 define it" (the 0.6 decoder knows it)
// agrees with what the conversion refuses to send a 0.6 peer (ErrNot06):
// a 0.6 host's action is never dropped for a type 0.6 has, and a 1.0-only
// one never applied.
func TestDefined06MatchesTheConversion(t *testing.T) {
	kinds := actionTypes10(t)
	if len(kinds) < 80 {
		t.Fatalf("read %d action types from the 1.0 schema; the reader is broken", len(kinds))
	}
	for _, kind := range kinds {
		probe, _ := json.Marshal(map[string]any{"type": kind, "approved": true})
		_, err := convert06.DownAction(probe)
		not06 := errors.Is(err, convert06.ErrNot06)
		if defined06(kind) == not06 {
			t.Errorf("%s: defined06 %v, conversion says not in 0.6 %v", kind, defined06(kind), not06)
		}
	}
}

// actionTypes10 lists the "type" of every StateAction variant in the 1.0
// schema (nested unions such as chat/toolCallConfirmed included).
func actionTypes10(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "ahp-1.0", "schema", "errors.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	type def struct {
		OneOf []struct {
			Ref string `json:"$ref"`
		} `json:"oneOf"`
		Properties struct {
			Type struct {
				Const string `json:"const"`
			} `json:"type"`
		} `json:"properties"`
	}
	var doc struct {
		Defs map[string]def `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(name string)
	walk = func(name string) {
		d := doc.Defs[name]
		if c := d.Properties.Type.Const; c != "" {
			seen[c] = true
		}
		for _, r := range d.OneOf {
			walk(strings.TrimPrefix(r.Ref, "#/$defs/"))
		}
	}
	walk("StateAction")
	return slices.Sorted(maps.Keys(seen))
}
