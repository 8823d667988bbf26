package protocol

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// maxFuzzInput bounds one iteration's JSON so the fuzzer spends its time on
// shapes, not on decoding megabytes.
const maxFuzzInput = 64 << 10

// actionKindPrefix maps a reducer kind to the prefix of the action types it
// applies; an action with any other prefix must leave that state unchanged.
var actionKindPrefix = map[string]string{
	"root": "root/", "session": "session/", "chat": "chat/", "terminal": "terminal/",
	"changeset": "changeset/", "annotations": "annotations/", "resourceWatch": "resourceWatch/",
	"canvas": "canvas/",
}

// missingTargetFields lists, per action type, the members naming things
// that must already exist in the state for the action to do anything: a
// turn, part, tool call, input request, pending message or customization.
// An action whose target is missing is stale or hostile; the reducer must
// ignore it rather than create, stamp or reshuffle anything. Actions that
// create their target (turnStarted, toolCallStart's tool call, the
// pendingMessageSet and customizationUpdated upserts) are not listed.
var missingTargetFields = map[string][]string{
	"chat/delta":                      {"turnId", "partId"},
	"chat/reasoning":                  {"turnId", "partId"},
	"chat/responsePart":               {"turnId"},
	"chat/usage":                      {"turnId"},
	"chat/turnComplete":               {"turnId"},
	"chat/turnCancelled":              {"turnId"},
	"chat/error":                      {"turnId"},
	"chat/toolCallStart":              {"turnId"},
	"chat/toolCallDelta":              {"turnId", "toolCallId"},
	"chat/toolCallReady":              {"turnId", "toolCallId"},
	"chat/toolCallConfirmed":          {"turnId", "toolCallId"},
	"chat/toolCallComplete":           {"turnId", "toolCallId"},
	"chat/toolCallResultConfirmed":    {"turnId", "toolCallId"},
	"chat/toolCallContentChanged":     {"turnId", "toolCallId"},
	"chat/toolCallAuthRequired":       {"turnId", "toolCallId"},
	"chat/toolCallAuthResolved":       {"turnId", "toolCallId"},
	"chat/inputAnswerChanged":         {"requestId"},
	"chat/inputCompleted":             {"requestId"},
	"chat/pendingMessageRemoved":      {"id"},
	"session/customizationToggled":    {"id"},
	"session/customizationRemoved":    {"id"},
	"session/mcpServerStateChanged":   {"id"},
	"session/mcpServerStartRequested": {"id"},
	"session/mcpServerStopRequested":  {"id"},
	// 1.0 actions that name a target.
	"chat/turnResume":                      {"turnId"},
	"chat/backgroundWorkRemoved":           {"id"},
	"chat/workingDirectoryRemoved":         {"directory"},
	"session/workingDirectoryRemoved":      {"directory"},
	"session/workingDirectoryReplaced":     {"directory"},
	"session/mcpServerBackgroundRequested": {"id"},
}

// missingTarget reports the first target member of actionJSON whose id
// occurs nowhere in the encoded state: not as any string value or key. The
// check is deliberately blunt — an id that appears anywhere (even in an
// unrelated field) counts as present — so it never flags a real target.
func missingTarget(actionType string, actionJSON, stateJSON []byte) (string, bool) {
	fields := missingTargetFields[actionType]
	if len(fields) == 0 {
		return "", false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(actionJSON, &m) != nil {
		return "", false
	}
	for _, f := range fields {
		var id string
		if json.Unmarshal(m[f], &id) != nil {
			continue
		}
		quoted, _ := json.Marshal(id)
		if !bytes.Contains(stateJSON, quoted) {
			return f + "=" + string(quoted), true
		}
	}
	return "", false
}

// withMissingTarget returns copies of actionJSON with each of its target
// members pointed at an id no state holds, for seeding, keyed by action
// type and member.
func withMissingTarget(actionJSON []byte) map[string][]byte {
	var m map[string]any
	if json.Unmarshal(actionJSON, &m) != nil {
		return nil
	}
	typ, _ := m["type"].(string)
	out := map[string][]byte{}
	for _, f := range missingTargetFields[typ] {
		if _, ok := m[f].(string); !ok {
			continue
		}
		c := make(map[string]any, len(m))
		for k, v := range m {
			c[k] = v
		}
		c[f] = "fuzz-no-such-" + f
		if b, err := json.Marshal(c); err == nil {
			out[typ+" "+f] = b
		}
	}
	return out
}

// FuzzReducers feeds (state kind, state JSON, action JSON) to Reduce. It is
// seeded with every conformance fixture's initial state and each of its
// actions — and each action against every other kind's state — so a plain
// `go test` replays them all. Properties:
//   - Reduce never panics;
//   - it never changes the encoding of the state it was given (purity);
//   - an unknown action type, an action of another channel kind, or one of
//     its own kind aimed at a turn, part, tool call, request, message or
//     customization the state does not hold (missingTargetFields), leaves
//     the state encode-equal;
//   - the result encodes, decodes again as the same kind, and re-encodes to
//     the same bytes.
func FuzzReducers(f *testing.F) {
	fixtures := parsedReducerFixtures(f)
	kindIndex := map[string]uint8{}
	for i, k := range reducerKinds {
		kindIndex[k] = uint8(i)
	}
	initials := map[string][]byte{}
	staleSeen := map[string]bool{}
	for _, fx := range fixtures {
		k, ok := kindIndex[fx.Reducer]
		if !ok {
			f.Fatalf("fixture for unknown reducer %q", fx.Reducer)
		}
		if _, seen := initials[fx.Reducer]; !seen {
			initials[fx.Reducer] = fx.Initial
		}
		for _, a := range fx.Actions {
			f.Add(k, []byte(fx.Initial), []byte(a))
			// One stale variant per action type and target member keeps
			// the seed corpus (and a short fuzz run's baseline) small.
			stale := withMissingTarget(a)
			for _, key := range slices.Sorted(maps.Keys(stale)) {
				if !staleSeen[key] {
					staleSeen[key] = true
					f.Add(k, []byte(fx.Initial), stale[key])
				}
			}
		}
	}
	// Cross-kind seeds: each kind's state against one action of every other kind.
	firstAction := map[string][]byte{}
	for _, fx := range fixtures {
		if _, seen := firstAction[fx.Reducer]; !seen && len(fx.Actions) > 0 {
			firstAction[fx.Reducer] = fx.Actions[0]
		}
	}
	for stateKind, st := range initials {
		for actionKind, a := range firstAction {
			if stateKind != actionKind {
				f.Add(kindIndex[stateKind], st, a)
			}
		}
	}

	f.Fuzz(func(t *testing.T, k uint8, stateJSON, actionJSON []byte) {
		if len(stateJSON)+len(actionJSON) > maxFuzzInput {
			return
		}
		kind := reducerKinds[int(k)%len(reducerKinds)]
		state, err := decodeReducerState(kind, stateJSON)
		if err != nil {
			return
		}
		var action StateAction
		if err := json.Unmarshal(actionJSON, &action); err != nil {
			return
		}
		before, err := json.Marshal(state)
		if err != nil {
			// A decoded state that cannot encode is a wire-type bug, not a
			// reducer one; the round-trip tests own that.
			return
		}

		got := Reduce(state, action, Rules{})

		if after, _ := json.Marshal(state); !bytes.Equal(before, after) {
			t.Fatalf("%s reducer mutated its input on %s:\n%s", kind, action.Kind(), wiretest.JSONDiff(before, after))
		}
		out, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("%s reducer result for %s does not encode: %v", kind, action.Kind(), err)
		}
		if !strings.HasPrefix(action.Kind(), actionKindPrefix[kind]) && !bytes.Equal(before, out) {
			t.Fatalf("%s reducer applied %s, an action of another channel:\n%s", kind, action.Kind(), wiretest.JSONDiff(before, out))
		}
		if which, missing := missingTarget(action.Kind(), actionJSON, before); missing && !bytes.Equal(before, out) {
			t.Fatalf("%s reducer changed state on %s aimed at %s, which the state does not hold:\n%s", kind, action.Kind(), which, wiretest.JSONDiff(before, out))
		}
		again, err := decodeReducerState(kind, out)
		if err != nil {
			t.Fatalf("%s reducer result for %s does not decode: %v\n%s", kind, action.Kind(), err, out)
		}
		if out2, err := json.Marshal(again); err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("%s reducer result for %s does not re-encode stably (%v):\n%s", kind, action.Kind(), err, wiretest.JSONDiff(out, out2))
		}

		unknown := StateAction{Variant: UnknownStateAction{Discriminator: actionKindPrefix[kind] + "notInThisVersion"}}
		if same, _ := json.Marshal(Reduce(state, unknown, Rules{})); !bytes.Equal(before, same) {
			t.Fatalf("%s reducer changed state on an unknown action type:\n%s", kind, wiretest.JSONDiff(before, same))
		}
	})
}
