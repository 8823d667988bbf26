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
	"github.com/ahptui/ahptui/protocol/ahp06"
	"github.com/ahptui/ahptui/protocol/convert"
	"github.com/ahptui/ahptui/protocol/internal/wiretest"
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

// TestDefinedMatchesTheConversion: for every action type of the 1.0
// schema and every older wire, the client's "does this version define it"
// agrees with what the conversion refuses to send a peer on that wire
// (ErrNotInVersion), and for 0.6 with the 0.6 decoder: a host's action is
// never dropped for a type its version has, and a later one never applied.
func TestDefinedMatchesTheConversion(t *testing.T) {
	kinds := actionTypes10(t)
	if len(kinds) < 80 {
		t.Fatalf("read %d action types from the 1.0 schema; the reader is broken", len(kinds))
	}
	for _, w := range []protocol.Wire{protocol.Wire06, protocol.Wire07, protocol.Wire08} {
		for _, kind := range kinds {
			probe, _ := json.Marshal(map[string]any{"type": kind, "approved": true})
			_, err := convert.DownAction(w, probe)
			refused := errors.Is(err, convert.ErrNotInVersion)
			if convert.Defined(w, kind) == refused {
				t.Errorf("%s on %v: defined %v, conversion refuses %v", kind, w, convert.Defined(w, kind), refused)
			}
			if w == protocol.Wire06 && convert.Defined(w, kind) != in06(kind) {
				t.Errorf("%s: defined on 0.6 %v, the 0.6 decoder knows it %v", kind, convert.Defined(w, kind), in06(kind))
			}
		}
	}
}

// in06 reports whether the 0.6 decoder knows the action type kind. The
// probe carries "approved" because chat/toolCallConfirmed is itself a
// union chosen by it.
func in06(kind string) bool {
	probe, _ := json.Marshal(map[string]any{"type": kind, "approved": true})
	var a ahp06.StateAction
	err := json.Unmarshal(probe, &a)
	_, unknown := a.Variant.(ahp06.UnknownStateAction)
	return err == nil && a.Variant != nil && !unknown
}

// actionTypes10 lists the "type" of every StateAction variant in the 1.0
// schema (nested unions such as chat/toolCallConfirmed included).
func actionTypes10(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(wiretest.RepoRoot(t), "..", "shared", "ahp-1.0", "schema", "errors.schema.json"))
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
