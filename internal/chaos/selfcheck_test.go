package chaos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
)

// errorRecorder is a testing.TB that records Errorf instead of failing, so
// the checks themselves can be shown to fail when they should.
type errorRecorder struct {
	testing.TB
	errs []string
}

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *errorRecorder) Helper() {}

func envelopeFrame(seq int64, client string, clientSeq int64, rejected bool) []byte {
	rej := ""
	if rejected {
		rej = `,"rejectionReason":"no"`
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/demo","serverSeq":%d,"origin":{"clientId":%q,"clientSeq":%d}%s,"action":{"type":"session/titleChanged","title":"t%d"}}}`,
		seq, client, clientSeq, rej, seq)
}

// TestExactlyOnceCheckCatchesFaults proves checkExactlyOnce fails on a
// doubled, a lost and a refused action, and passes on a clean ledger (the
// same envelope delivered to two subscribers counts once).
func TestExactlyOnceCheckCatchesFaults(t *testing.T) {
	sent := []sentAction{{seq: 10, what: "a"}, {seq: 11, what: "b"}}
	cases := []struct {
		name   string
		frames [][]byte
		want   []string // substrings of the expected errors; none = clean
	}{
		{"clean", [][]byte{envelopeFrame(1, victimID, 10, false), envelopeFrame(1, victimID, 10, false), envelopeFrame(2, victimID, 11, false)}, nil},
		{"applied twice", [][]byte{envelopeFrame(1, victimID, 10, false), envelopeFrame(2, victimID, 11, false), envelopeFrame(3, victimID, 11, false)},
			[]string{"b (clientSeq 11) applied 2 times"}},
		{"lost", [][]byte{envelopeFrame(1, victimID, 10, false)},
			[]string{"b (clientSeq 11) applied 0 times", "applied 1 distinct"}},
		{"refused", [][]byte{envelopeFrame(1, victimID, 10, false), envelopeFrame(2, victimID, 11, false), envelopeFrame(3, victimID, 12, true)},
			[]string{"refused victim action"}},
		{"another client's action", [][]byte{envelopeFrame(1, victimID, 10, false), envelopeFrame(2, victimID, 11, false), envelopeFrame(3, "someone", 11, false)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			led := newLedger()
			for _, f := range c.frames {
				led.tap(1, demohost.Outbound, f)
			}
			rec := &errorRecorder{TB: t}
			e := &env{t: rec}
			e.checkExactlyOnce(led, sent)
			if len(c.want) == 0 && len(rec.errs) > 0 {
				t.Fatalf("clean ledger reported %q", rec.errs)
			}
			for _, w := range c.want {
				found := false
				for _, got := range rec.errs {
					found = found || strings.Contains(got, w)
				}
				if !found {
					t.Errorf("no error containing %q; got %q", w, rec.errs)
				}
			}
		})
	}
}

// TestComparableMasksOnlyModifiedAt proves the state comparison ignores the
// locally stamped modifiedAt and nothing else.
func TestComparableMasksOnlyModifiedAt(t *testing.T) {
	a := protocol.ChatState{Resource: "ahp-chat:/x", Title: "t", ModifiedAt: "2026-01-01T00:00:00.000Z", Turns: []protocol.Turn{}}
	b := a
	b.ModifiedAt = "2026-01-01T00:00:00.002Z"
	ja, _ := comparable(a)
	jb, _ := comparable(b)
	if string(ja) != string(jb) {
		t.Fatalf("modifiedAt not masked: %s vs %s", ja, jb)
	}
	b.Title = "u"
	jb, _ = comparable(b)
	if string(ja) == string(jb) {
		t.Fatal("a title difference was masked")
	}
}

// TestLedgerReadsTheTap checks the ledger's reading of authenticate
// requests, client identity and reconnect results from raw frames.
func TestLedgerReadsTheTap(t *testing.T) {
	led := newLedger()
	led.tap(3, demohost.Inbound, []byte(`{"jsonrpc":"2.0","id":1,"method":"reconnect","params":{"clientId":"chaos-victim","lastSeenServerSeq":4,"subscriptions":[]}}`))
	led.tap(3, demohost.Inbound, []byte(`{"jsonrpc":"2.0","id":2,"method":"authenticate","params":{"resource":"r","token":"[redacted]"}}`))
	led.tap(3, demohost.Outbound, []byte(`{"jsonrpc":"2.0","id":2,"result":{}}`))
	led.tap(3, demohost.Outbound, []byte(`{"jsonrpc":"2.0","id":1,"result":{"type":"snapshot","snapshots":[]}}`))
	led.tap(4, demohost.Outbound, []byte(`{"jsonrpc":"2.0","id":1,"result":{"type":"replay","actions":[],"missing":[]}}`)) // not a reconnect on conn 4
	if got := led.connsOf(victimID); len(got) != 1 || got[0] != 3 {
		t.Errorf("connsOf = %v, want [3]", got)
	}
	if n := led.authOn(3); n != 1 {
		t.Errorf("authOn(3) = %d, want 1", n)
	}
	if r := led.reconnectResults(victimID); r["snapshot"] != 1 || r["replay"] != 0 {
		t.Errorf("reconnectResults = %v, want one snapshot", r)
	}
}
