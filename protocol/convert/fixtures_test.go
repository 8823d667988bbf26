package convert

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// fixtureClock is the clock the 0.6 conformance fixtures were made with:
// 9999 ms after the epoch (chat modifiedAt "1970-01-01T00:00:09.999Z").
func fixtureClock() time.Time { return time.UnixMilli(9999).UTC() }

// fixtureChannels gives each fixture reducer kind a channel URI of that
// kind: the conversion decides a state's shape by its channel, and
// annotation origins take their session from it.
var fixtureChannels = map[string]string{
	"root":          protocol.RootChannel,
	"session":       "ahp-session:/fixture",
	"chat":          "ahp-chat:/fixture",
	"terminal":      "ahp-terminal:/fixture",
	"changeset":     "ahp-changeset:/fixture",
	"annotations":   "ahp-session:/fixture/annotations",
	"resourceWatch": "ahp-resource-watch:/fixture",
}

// state06 is a channel state held in the 1.0 model during a run of an
// older version's fixtures.
type state06 struct {
	channel string
	state   protocol.SnapshotStateVariant
}

// reducer06 is the path a 0.6 peer's traffic takes in ahptui: the state and
// each action go up to 1.0 (actions inside an envelope, as they arrive),
// protocol.Reduce applies them with the 0.6 rules, and the state comes down
// to 0.6 to be compared with what the 0.6 fixtures expect. reducer07 is the
// same path from 0.7.
var (
	reducer06 = reducer06With(protocol.Reduce)
	reducer07 = reducerWith(protocol.Wire07, protocol.Reduce)
)

func reducer06With(reduce func(protocol.SnapshotStateVariant, protocol.StateAction, protocol.Rules) protocol.SnapshotStateVariant) wiretest.Reducer[state06] {
	return reducerWith(protocol.Wire06, reduce)
}

// reducerWith is the path a peer on wire w takes, reduced by reduce with
// w's rules and the fixtures' clock.
func reducerWith(w protocol.Wire, reduce func(protocol.SnapshotStateVariant, protocol.StateAction, protocol.Rules) protocol.SnapshotStateVariant) wiretest.Reducer[state06] {
	return wiretest.Reducer[state06]{
		Decode: func(kind string, raw json.RawMessage) (state06, error) {
			channel, ok := fixtureChannels[kind]
			if !ok {
				return state06{}, fmt.Errorf("unknown reducer kind %q", kind)
			}
			up, err := UpState(w, channel, raw)
			if err != nil {
				return state06{}, err
			}
			st, err := protocol.DecodeSnapshotState(channel, up)
			if err != nil {
				return state06{}, err
			}
			return state06{channel, st.Variant}, nil
		},
		Apply: func(s state06, action json.RawMessage) (state06, error) {
			env := fmt.Appendf(nil, `{"channel":%q,"serverSeq":1,"action":%s}`, s.channel, action)
			up, err := UpParams(w, "action", env)
			if err != nil {
				return s, err
			}
			var e protocol.ActionEnvelope
			if err := json.Unmarshal(up, &e); err != nil {
				return s, fmt.Errorf("decode the converted action %s: %w", up, err)
			}
			return state06{s.channel, reduce(s.state, e.Action, protocol.RulesFor(w, fixtureClock))}, nil
		},
		Encode: func(s state06) ([]byte, error) {
			b, err := json.Marshal(s.state)
			if err != nil {
				return nil, err
			}
			return DownState(w, s.channel, b)
		},
	}
}

// gaps06 names the 0.6 fixtures (and hand-written 0.6 cases) that the 1.0
// model cannot carry, with the reason. Each must still fail: one that
// passes is reported, so the list only shrinks.
//
// It is empty: the one gap there was (changeset/contentChanged's error,
// removed in 0.9) is now an optional member of the model that only the 0.6
// rules read.
var gaps06 = map[string]string{}

// checkGap skips a known gap after checking that it still fails.
func checkGap(t *testing.T, reason, msg string) {
	t.Helper()
	if reason == "" {
		return
	}
	if msg == "" {
		t.Fatalf("listed in gaps06 (%s) but passes now: remove it from the list", reason)
	}
	t.Skipf("known gap: %s", reason)
}

// TestReducerFixtures06 runs every 0.6 reducer conformance fixture through
// the conversion and the 1.0 reducers with the 0.6 rules (reducer06).
// AHP_TEST_CASES=DIR runs another fixture set; a file that does not parse
// fails its own subtest only.
func TestReducerFixtures06(t *testing.T) {
	passed := map[string]int{}
	total := map[string]int{}
	for _, f := range wiretest.LoadReducerFixtures(t, wiretest.FixtureDir(t, "reducers")) {
		fx := f.Fixture
		total[fx.Reducer]++
		ok := t.Run(f.Name, func(t *testing.T) {
			if f.Err != nil {
				t.Fatal(f.Err)
			}
			msg := wiretest.RunReducerFixture(fx, reducer06)
			checkGap(t, gaps06[f.Name], msg)
			if msg != "" {
				t.Errorf("%s.json (%s reducer): %s\n%s", f.Name, fx.Reducer, fx.Description, msg)
			}
		})
		if ok {
			passed[fx.Reducer]++
		}
	}
	for k, n := range total {
		t.Logf("%s: %d of %d fixtures pass", k, passed[k], n)
	}
}

// TestReducerFixtures07 runs every official 0.7.0 reducer fixture
// (AHP07_TEST_CASES=DIR, default ../shared/ahp-0.7.0/test-cases) the way a
// 0.7 host's traffic goes: up through the 0.8 and 1.0 steps, reduced with
// the 0.7 rules, and down again. Nothing is skipped: every change after
// 0.7 is the conversion's or the rules' to undo.
func TestReducerFixtures07(t *testing.T) {
	fixtures := wiretest.LoadReducerFixtures(t, wiretest.FixtureDir07(t, "reducers"))
	if len(fixtures) < 50 {
		t.Fatalf("only %d 0.7.0 reducer fixtures; the folder is not the 0.7.0 test-cases", len(fixtures))
	}
	for _, f := range fixtures {
		t.Run(f.Name, func(t *testing.T) {
			if f.Err != nil {
				t.Fatal(f.Err)
			}
			if msg := wiretest.RunReducerFixture(f.Fixture, reducer07); msg != "" {
				t.Errorf("%s.json (%s reducer): %s\n%s", f.Name, f.Fixture.Reducer, f.Fixture.Description, msg)
			}
		})
	}
}

// TestReducerHarnessCatchesFailures proves the 0.6 harness can fail: a
// wrong result is reported path by path, and a reducer that writes into
// the slice it was given is reported as impure even when its result is
// right.
func TestReducerHarnessCatchesFailures(t *testing.T) {
	fx := reducerCase{name: "rename", kind: "session",
		initial:  `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[],"chats":[{"resource":"c:/1","title":"old","status":1,"modifiedAt":"x","workingDirectory":"file:///w"}]}`,
		actions:  []string{`{"type":"session/chatUpdated","chat":"c:/1","changes":{"title":"new"}}`},
		expected: `{"provider":"p","title":"T","status":1,"lifecycle":"ready","activeClients":[],"chats":[{"resource":"c:/1","title":"new","status":1,"modifiedAt":"x","workingDirectory":"file:///w"}]}`,
	}.fixture()
	if msg := wiretest.RunReducerFixture(fx, reducer06); msg != "" {
		t.Fatalf("the real reducer should pass: %s", msg)
	}

	wrong := fx
	wrong.Expected = json.RawMessage(strings.Replace(string(fx.Expected), `"new"`, `"other"`, 1))
	if msg := wiretest.RunReducerFixture(wrong, reducer06); !strings.Contains(msg, "$.chats[0].title") {
		t.Errorf("a wrong result should be reported with its path, got %q", msg)
	}

	mutating := reducer06With(func(st protocol.SnapshotStateVariant, a protocol.StateAction, r protocol.Rules) protocol.SnapshotStateVariant {
		s := st.(protocol.SessionState)
		if u, ok := a.Variant.(protocol.SessionChatUpdatedAction); ok && u.Changes.Title != nil {
			s.Chats[0].Title = *u.Changes.Title // writes into the caller's backing array
		}
		return s
	})
	if msg := wiretest.RunReducerFixture(fx, mutating); !strings.Contains(msg, "mutated") {
		t.Errorf("a reducer that mutates its input should be reported as impure, got %q", msg)
	}

	// A number spelled differently from Go's encoder is the same number.
	spelled := fx
	spelled.Expected = json.RawMessage(strings.Replace(string(fx.Expected), `"status":1,"lifecycle"`, `"status":1.0e0,"lifecycle"`, 1))
	if msg := wiretest.RunReducerFixture(spelled, reducer06); msg != "" {
		t.Errorf("1.0e0 and 1 are one number: %s", msg)
	}
}

// TestFixturesFromAHPTestCases: AHP_TEST_CASES points the 0.6 run at
// another fixture set (relative to the repository root); there a file
// that does not parse fails only its own subtest, naming the file, and a
// good 0.6 fixture beside it still runs through the conversion and passes.
func TestFixturesFromAHPTestCases(t *testing.T) {
	out, failed := wiretest.RunWithFixtures(t, "AHP_TEST_CASES", map[string]string{
		"reducers/z_good.json": `{"description":"a terminal exits","reducer":"terminal",` +
			`"initial":{"title":"sh","claim":{"kind":"client","clientId":"c"},"content":[]},` +
			`"actions":[{"type":"terminal/exited","exitCode":3}],` +
			`"expected":{"title":"sh","claim":{"kind":"client","clientId":"c"},"content":[],"exitCode":3}}`,
		"reducers/a_broken.json": `{"description": "cut off`,
	}, "^TestReducerFixtures06$")
	if !failed {
		t.Fatalf("the child run should fail on the broken file:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestReducerFixtures06/a_broken ",
		"--- PASS: TestReducerFixtures06/z_good ",
		"a_broken.json is not a reducer fixture",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q:\n%s", want, out)
		}
	}
}
