package ui

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// terminalStream is n bytes of coloured shell output, 80 columns wide.
func terminalStream(n int) string {
	var b strings.Builder
	b.Grow(n + 128)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\x1b[32mok\x1b[0m   %7d  github.com/ahptui/ahptui/protocol/client  \x1b[1m%5.3fs\x1b[0m\r\n", i, float64(i%997)/100)
	}
	return b.String()[:n]
}

// BenchmarkTerminalStream10MB streams 10 MB of coloured output through an
// open terminal pane at 80×24, 16 KiB per batch of terminal/data, each
// batch reduced into the client's mirror (protocol.ReduceTerminal, timed
// with the frames) and followed by two frames: a frame feeds the emulator at most
// maxFeedPerFrame of the bytes not fed yet and draws the pane; a backlog
// past maxTermReplay skips ahead. It reports the frame time, the bytes allocated per
// frame and what stays live after the stream: the pane's emulator, its
// 5,000 lines of scrollback and parser, and the terminal's state the pane
// holds (the mirror's 10 MB in Text chunks, read by range, never joined).
//
// Budget: < 4 ms per frame (ms/frame < 4); live memory after 10 MB
// < 64 MiB (MiB-live): the pane's share is bounded by the scrollback; the
// state it holds is the stream's 10 MB once, never joined or copied.
func BenchmarkTerminalStream10MB(b *testing.B) {
	const total, chunk = 10 << 20, 16 << 10
	stream := terminalStream(total)
	const uri = "agenthost-terminal://bench/1"
	cols, rows := int64(80), int64(24)
	stub := &stubClient{terminals: map[string]protocol.TerminalState{}}
	empty := protocol.TerminalState{Title: "bench", Cols: &cols, Rows: &rows,
		Claim: protocol.NewTerminalClaim(protocol.TerminalClientClaim{Kind: "client", ClientID: "other"})}
	var frames int
	var elapsed time.Duration
	var live float64
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		a := &app{keys: keymap.DefaultKeyMap(), th: views.NewTheme(true, false), client: stub, width: 80, height: 24}
		t := &terminalView{app: a, open: true, channel: uri, follow: true}
		st := empty
		start := time.Now()
		frame := func() {
			if out := t.view(80, 24); len(out) == 0 {
				b.Fatal("empty frame")
			}
			frames++
		}
		for n := chunk; n <= total; n += chunk {
			// The client's mirror takes the batch as the host sends it.
			st = protocol.ReduceTerminal(st, protocol.StateAction{Variant: protocol.TerminalDataAction{Type: "terminal/data", Data: stream[n-chunk : n]}})
			stub.terminals[uri] = st
			more := t.refresh(uri)
			frame()
			// A burst is fed over the frames that follow; the next chunk
			// arrives after one of them, so a flood falls behind and
			// skips ahead rather than stalling.
			if more != nil {
				t.onSubscribed(more().(terminalSubscribedMsg))
				frame()
			}
		}
		for more := t.sync(); more != nil; more = t.onSubscribed(more().(terminalSubscribedMsg)) {
			frame()
		}
		elapsed += time.Since(start)
		if !strings.Contains(ansi.Strip(t.view(80, 24)), "protocol/client") {
			b.Fatal("the stream's end is not on screen")
		}
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		live = float64(m.HeapAlloc) - float64(ms0.HeapAlloc)
		t.reset()
	}
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(elapsed.Microseconds())/float64(frames)/1000, "ms/frame")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(frames), "B/frame")
	b.ReportMetric(live/(1<<20), "MiB-live")
}
