package startbench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
)

// frameMarker is text of the TUI's first frame, whatever the host has
// answered by then: the sessions list's title, drawn before connecting
// finishes. floorframe writes it too.
const frameMarker = "Sessions ("

// BenchmarkFirstFrame times how long after exec the TUI's first frame is
// on the terminal: `ahptui --host ws://127.0.0.1:PORT/` in a
// pseudo-terminal (120×40, TERM=xterm-256color), the clock running from
// just before exec until the terminal has received the first frame's text
// (frameMarker). Connecting to the host goes on behind the frame, so the
// host's answer is not part of it. The floor is a bare Go binary
// (testdata/floorframe) that writes one screen with the same text to the
// same kind of terminal: process start, the Go runtime and one write. The
// two run in turn, floor, ahptui, floor, …, and each first frame is
// divided by its pair's floor, so a machine that slows down mid-run slows
// both sides of a ratio; the figures are the medians of the round.
//
// Target (issue 33): the first frame within 50 ms of exec, which is
// 7 floors here (the floor takes 7 ms on the shared 2-core machine when
// it is idle). Budget, until the target is met:
// frame-x-floor < 15, median of 3 (internal/budgets) — a guard against
// start-up growing further, not the target.
//
// The target is not met yet (2026-12-05, that machine: idle, 13x, the
// first frame at 90 ms over a 7 ms floor, 98 ms before fosite left the
// binary; loaded by four other builds, 11x to 19x, 110 to 280 ms). Package initialisation is the largest part: chroma's lexer and
// style registries, parsed from embedded XML by their packages' init
// (about a third of the process's CPU time before the first frame), then
// bluemonday, goldmark's extensions and glamour's autolink, all linked by
// glamour (views/markdown.go) and the diff view's highlighting; then Bubble
// Tea's own start (its screen buffers and key table) and the first View.
// A build without glamour and chroma's registries (an experiment, not
// code here) drew its first frame at 58 ms, 0.66x the same run's 90. go-runewidth's 2 MB
// width table, built at the first box-drawing character the renderer
// measures (7 to 30 ms here), is built on another core while the UI
// starts (warm.go).
//
// Metrics: frame-x-floor (wall-clock ratio, median of the pairs),
// frame-ms and floor-ms (medians), and draw-ms: from the first byte the
// program writes (Bubble Tea's terminal queries, as its program starts)
// to the first frame, the median — the first render alone, which the
// width table's warm-up took from 15 to 6 ms.
func BenchmarkFirstFrame(b *testing.B) {
	ahptui := build(b, "ahptui", "github.com/ahptui/ahptui")
	floor := build(b, "floorframe", "./testdata/floorframe")

	h, err := demohost.Start(b.Context(), demohost.Config{StepDelay: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	env := append(cleanEnv(b), "TERM=xterm-256color", "COLORTERM=")
	cfgDir := b.TempDir()

	type sample struct{ floor, frame, draw time.Duration }
	var got []sample
	b.ResetTimer()
	for range b.N {
		got = got[:0]
		for i := range pairs + 1 {
			var s sample
			if s.floor, _, err = firstFrame(env, floor); err != nil {
				b.Fatal(err)
			}
			if s.frame, s.draw, err = firstFrame(env, ahptui, "--host", h.URL(), "--config-dir", cfgDir); err != nil {
				b.Fatal(err)
			}
			if i > 0 {
				got = append(got, s)
			}
		}
	}
	b.StopTimer()

	frames := make([]float64, len(got))
	floors := make([]float64, len(got))
	ratios := make([]float64, len(got))
	draws := make([]float64, len(got))
	for i, s := range got {
		draws[i] = float64(s.draw) / float64(time.Millisecond)
		frames[i] = float64(s.frame) / float64(time.Millisecond)
		floors[i] = float64(s.floor) / float64(time.Millisecond)
		ratios[i] = float64(s.frame) / float64(max(s.floor, time.Microsecond))
	}
	b.ReportMetric(median(ratios), "frame-x-floor")
	b.ReportMetric(median(frames), "frame-ms")
	b.ReportMetric(median(floors), "floor-ms")
	b.ReportMetric(median(draws), "draw-ms")
}

// firstFrame starts bin in a fresh pseudo-terminal and returns how long
// after the start the terminal had received frameMarker, and how long
// after the program's first output. The process is killed then: what it
// does after its first frame is not measured.
func firstFrame(env []string, bin string, args ...string) (frame, draw time.Duration, err error) {
	master, slave, err := openPTY(120, 40)
	if err != nil {
		return 0, 0, err
	}
	defer master.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = ttyAttr()
	t0 := time.Now()
	err = cmd.Start()
	slave.Close()
	if err != nil {
		return 0, 0, fmt.Errorf("start %s: %w", bin, err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	// The pty master is pollable: a deadline bounds a program that never
	// draws.
	if err := master.SetReadDeadline(t0.Add(10 * time.Second)); err != nil {
		return 0, 0, fmt.Errorf("pty read deadline: %w", err)
	}
	var seen bytes.Buffer
	var first time.Duration
	buf := make([]byte, 64<<10)
	for {
		n, err := master.Read(buf)
		if n > 0 && seen.Len() == 0 {
			first = time.Since(t0)
		}
		seen.Write(buf[:n])
		if bytes.Contains(seen.Bytes(), []byte(frameMarker)) {
			frame = time.Since(t0)
			return frame, frame - first, nil
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				err = errors.New("no first frame within 10s")
			}
			tail := seen.Bytes()[max(0, seen.Len()-300):]
			return 0, 0, fmt.Errorf("%s: %w; the terminal got %d bytes, ending %q", bin, err, seen.Len(), tail)
		}
	}
}
