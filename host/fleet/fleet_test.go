package fleet

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/internal/badhost"
	"github.com/ahptui/ahptui/internal/demotest"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

const testClientID = "0123456789abcdef0123456789abcdef"

func clientOptions(t dial.Target) client.Options {
	return pick.ClientOptions(t, testClientID, protocol.Implementation{Name: "ahptui-test"}, slog.New(slog.DiscardHandler))
}

func target(t *testing.T, raw string) dial.Target {
	t.Helper()
	tg, err := dial.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestRegistryHostsApart: three demo hosts, a listener that never
// answers, a host that refuses every version and a closed port, connected
// at once: the demo hosts are connected long before the silent one's
// timeout ends (it delays none of them), each failing host ends in its
// own kind with its reason, and the rows stay in config order.
func TestRegistryHostsApart(t *testing.T) {
	a, b, c := demotest.Start(t, demohost.Config{}), demotest.Start(t, demohost.Config{}), demotest.Start(t, demohost.Config{})
	silent, refusing, down := badhost.Silent(t), badhost.RefusingVersion(t), badhost.Closed(t)
	const timeout = 3 * time.Second
	var mu sync.Mutex
	connectedAt := map[string]time.Duration{}
	began := time.Now()
	r := New([]Config{
		{Target: target(t, silent)},
		{Target: target(t, a.URL())},
		{Target: target(t, refusing)},
		{Target: target(t, b.URL())},
		{Target: target(t, down)},
		{Target: target(t, c.URL())},
	}, Options{ClientOptions: clientOptions, Timeout: timeout, Attempts: 2, Backoff: 50 * time.Millisecond,
		OnChange: func(h *Host, s State) {
			if s.Kind == Connected {
				mu.Lock()
				connectedAt[h.URL] = time.Since(began)
				mu.Unlock()
			}
		}})
	defer r.Close()
	r.Connect(t.Context())
	took := time.Since(began)
	if took < timeout-100*time.Millisecond || took > timeout+5*time.Second {
		t.Errorf("Connect took %v; the silent host's timeout is %v", took, timeout)
	}
	for _, u := range []string{a.URL(), b.URL(), c.URL()} {
		if at, ok := connectedAt[u]; !ok || at > timeout/2 {
			t.Errorf("%s connected after %v (ok %v): the silent host held it back", u, at, ok)
		}
	}
	want := []struct {
		url  string
		kind Kind
		why  error
	}{
		{silent, Failed, context.DeadlineExceeded},
		{a.URL(), Connected, nil},
		{refusing, Refused, &client.UnsupportedProtocolVersionError{}},
		{b.URL(), Connected, nil},
		{down, Failed, dial.ErrRefused},
		{c.URL(), Connected, nil},
	}
	hs := r.Hosts()
	if len(hs) != len(want) {
		t.Fatalf("%d hosts, want %d", len(hs), len(want))
	}
	for i, w := range want {
		h, s := hs[i], hs[i].State()
		if h.URL != w.url || s.Kind != w.kind {
			t.Errorf("row %d: %s %s, want %s %s (%v)", i, h.URL, s.Kind, w.url, w.kind, s.Err)
			continue
		}
		if w.why == nil {
			if h.Client() == nil || s.Err != nil {
				t.Errorf("%s: connected without a client, or with an error %v", h.URL, s.Err)
			}
			continue
		}
		if ve, ok := w.why.(*client.UnsupportedProtocolVersionError); ok {
			if !errors.As(s.Err, &ve) {
				t.Errorf("%s: %v, want a version refusal", h.URL, s.Err)
			}
		} else if !errors.Is(s.Err, w.why) {
			t.Errorf("%s: %v, want %v", h.URL, s.Err, w.why)
		}
		if h.Client() != nil {
			t.Errorf("%s: %s with a client", h.URL, s.Kind)
		}
	}
	// A refusal is never tried again; a host down is, up to Attempts.
	if s := hs[2].State(); s.Attempt != 1 {
		t.Errorf("the refusing host was tried %d times", s.Attempt)
	}
	if s := hs[4].State(); s.Attempt != 2 {
		t.Errorf("the host down was tried %d times, want 2", s.Attempt)
	}
	// Each connected host is its own connection: a session made on one
	// is not on the others.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for _, h := range []*Host{hs[1], hs[3], hs[5]} {
		if _, err := h.Client().ListSessions(ctx); err != nil {
			t.Errorf("%s: %v", h.URL, err)
		}
	}
}

// TestRegistryIdentity: entries naming one host (the same URL spelled
// otherwise, or with a connection token) are one host, the first kept;
// another path on the same server is another host; what is shown never
// carries the token.
func TestRegistryIdentity(t *testing.T) {
	const secret = "s3cret-token-value"
	r := New([]Config{
		{Target: target(t, "ws://Example.com:80/ahp/"), Label: "work", Source: "saved"},
		{Target: target(t, "ws://example.com/ahp?tkn="+secret), Source: "flag"},
		{Target: target(t, "ws://example.com/other"), Source: "flag"},
		{Target: target(t, "wss://example.com/ahp"), Source: "flag"},
		{Target: target(t, "ws://127.0.0.1:9/?tkn="+secret), Source: "local", Err: errors.New("unreadable")},
	}, Options{ClientOptions: clientOptions})
	var got []string
	for _, h := range r.Hosts() {
		got = append(got, h.Source+" "+h.ID+" "+h.Display())
		if strings.Contains(h.Display()+h.ID+h.URL, secret) {
			t.Errorf("%s shows the token", h.ID)
		}
	}
	want := []string{
		"saved ws://example.com:80/ahp work (ws://Example.com:80/ahp/)",
		"flag ws://example.com:80/other ws://example.com/other",
		"flag wss://example.com:443/ahp wss://example.com/ahp",
		"local ws://127.0.0.1:9 ws://127.0.0.1:9/",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hosts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A host that cannot be dialled is a Failed row from the start, and
	// Connect leaves it so.
	last := r.Hosts()[3]
	r.Connect(t.Context())
	if s := last.State(); s.Kind != Failed || s.Err == nil || s.Err.Error() != "unreadable" {
		t.Errorf("the unreadable host: %+v", s)
	}
}

// TestRegistryEventsTagged: events of two hosts come in one stream, each
// batch tagged with its host; a session created on one host arrives
// tagged with that host and no other.
func TestRegistryEventsTagged(t *testing.T) {
	a, b := demotest.Start(t, demohost.Config{NoDemoSession: true}), demotest.Start(t, demohost.Config{NoDemoSession: true})
	r := New([]Config{{Target: target(t, a.URL())}, {Target: target(t, b.URL())}}, Options{ClientOptions: clientOptions})
	defer r.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	r.Connect(ctx)
	hb := r.Hosts()[1]
	if hb.State().Kind != Connected {
		t.Fatalf("b: %+v", hb.State())
	}
	events := r.Events(ctx)
	const uri = "ahp-session:/only-on-b"
	provider := demohost.Provider
	if err := hb.Client().CreateSession(ctx, protocol.CreateSessionParams{Channel: uri, Provider: &provider}); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case <-ctx.Done():
			t.Fatal("no sessionAdded event")
		case batch := <-events:
			for _, ev := range batch.Events {
				if e, ok := ev.(client.SessionAddedEvent); ok && e.Summary.Resource == uri {
					if batch.Host != hb {
						t.Fatalf("the session added on b came tagged %s", batch.Host.URL)
					}
					return
				}
			}
		}
	}
}
