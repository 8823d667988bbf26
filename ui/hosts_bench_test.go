package ui

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// manyHosts is a model over hosts stub hosts of sessions sessions each,
// all connected and listed, the first active, at 160x50.
func manyHosts(hosts, sessions int) *Model {
	never := func(ctx context.Context) (Client, error) { <-ctx.Done(); return nil, ctx.Err() }
	cfgs := make([]HostConfig, hosts)
	for i := range cfgs {
		cfgs[i] = HostConfig{Host: fmt.Sprintf("ws://10.0.0.%d:8080/", i+1), Connect: never}
	}
	m := New(Config{Hosts: cfgs, Clock: func() time.Time { return fixedNow }, NewID: func() string { return "fixed-id" },
		NoColor: true, Tick: -1, Notify: true})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	for i := range hosts {
		stub := &stubClient{sessions: map[string]protocol.SessionState{}, chats: map[string]protocol.ChatState{},
			events: make(chan client.Event), version: "1.0.0"}
		m.Update(hostConnectedMsg{host: i, client: stub})
		list := make([]protocol.SessionSummary, sessions)
		for j := range list {
			list[j] = summary(fmt.Sprintf("ahp-session:/h%d-s%d", i, j), fmt.Sprintf("Session %d of host %d", j, i), protocol.SessionStatusIdle)
			list[j].ModifiedAt = protocol.Timestamp(fixedNow.Add(-time.Duration(j) * time.Minute))
		}
		m.Update(hostEventsMsg{host: i, evs: []client.Event{client.SessionsListedEvent{Sessions: list}}})
	}
	return m
}

// BenchmarkManyHosts is issue 25's budget: 20 hosts of 500 sessions each
// in one UI. One op is one frame of a host's event: a session of another
// host starts (or stops) waiting on the user, Update applies it, and the
// frame is drawn. Every op checks that the inbox already has (or no
// longer has) that session: the inbox is updated within the one frame of
// the event, not a later one.
//
// Budget: a frame under 4 ms (ms/frame < 4), and the model with its
// 10,000 sessions under 200 MiB of live heap (MiB-live < 200). Measured
// on the shared 2-CPU box (2026-12-02): 0.85 ms/frame, 3 MiB.
func BenchmarkManyHosts(b *testing.B) {
	b.Run("20x500", func(b *testing.B) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m := manyHosts(20, 500)
		_ = m.View()
		runtime.GC()
		runtime.ReadMemStats(&after)
		live := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
		waiting := protocol.SessionStatusIdle | protocol.SessionStatusInputNeeded
		idle := protocol.SessionStatusIdle
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		for i := range b.N {
			host, uri := 1+i%19, fmt.Sprintf("ahp-session:/h%d-s%d", 1+i%19, (i*7)%500)
			st, want := &waiting, true
			if m.hosts.list[host].list[slices.IndexFunc(m.hosts.list[host].list, func(s protocol.SessionSummary) bool { return s.Resource == uri })].Status.Has(protocol.SessionStatusInputNeeded) {
				st, want = &idle, false
			}
			m.Update(hostEventsMsg{host: host, evs: []client.Event{client.SessionSummaryChangedEvent{Session: uri,
				Changes: protocol.PartialSessionSummary{Status: st}}}})
			_ = m.View()
			if slices.ContainsFunc(m.waits.items, func(w waitItem) bool { return w.session == uri && w.host == m.hosts.list[host].cfg.Host }) != want {
				b.Fatalf("op %d: the inbox does not show %s of host %d as waiting=%v after its frame", i, uri, host, want)
			}
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N)/1000, "ms/frame")
		b.ReportMetric(live, "MiB-live")
		runtime.KeepAlive(m)
	})
}
