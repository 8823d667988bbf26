package protocol

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// maxFuzzInput bounds one iteration's JSON so the fuzzer spends its time on
// shapes, not on decoding megabytes.
const maxFuzzInput = 64 << 10

// actionKindPrefix maps a reducer kind to the prefix of the action types it
// applies; an action with any other prefix must leave that state unchanged.
var actionKindPrefix = map[string]string{
	"root": "root/", "session": "session/", "chat": "chat/", "terminal": "terminal/",
	"changeset": "changeset/", "annotations": "annotations/", "resourceWatch": "resourceWatch/",
}

// FuzzReducers feeds (state kind, state JSON, action JSON) to Reduce. It is
// seeded with every conformance fixture's initial state and each of its
// actions — and each action against every other kind's state — so a plain
// `go test` replays them all. Properties:
//   - Reduce never panics;
//   - it never changes the encoding of the state it was given (purity);
//   - an unknown action type, or an action of another channel kind, leaves
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

		got := Reduce(state, action, fixtureClock)

		if after, _ := json.Marshal(state); !bytes.Equal(before, after) {
			t.Fatalf("%s reducer mutated its input on %s:\n%s", kind, action.Kind(), jsonDiff(before, after))
		}
		out, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("%s reducer result for %s does not encode: %v", kind, action.Kind(), err)
		}
		if !strings.HasPrefix(action.Kind(), actionKindPrefix[kind]) && !bytes.Equal(before, out) {
			t.Fatalf("%s reducer applied %s, an action of another channel:\n%s", kind, action.Kind(), jsonDiff(before, out))
		}
		again, err := decodeReducerState(kind, out)
		if err != nil {
			t.Fatalf("%s reducer result for %s does not decode: %v\n%s", kind, action.Kind(), err, out)
		}
		if out2, err := json.Marshal(again); err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("%s reducer result for %s does not re-encode stably (%v):\n%s", kind, action.Kind(), err, jsonDiff(out, out2))
		}

		unknown := StateAction{Variant: UnknownStateAction{Discriminator: actionKindPrefix[kind] + "notInThisVersion"}}
		if same, _ := json.Marshal(Reduce(state, unknown, fixtureClock)); !bytes.Equal(before, same) {
			t.Fatalf("%s reducer changed state on an unknown action type:\n%s", kind, jsonDiff(before, same))
		}
	})
}
