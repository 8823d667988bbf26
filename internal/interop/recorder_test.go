package interop

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ahptui/ahptui/internal/capimock"
)

// recorder is a loopback WebSocket proxy between ahptui and the host that
// keeps every frame, so a failed step prints the frames it exchanged. The
// mock's token is redacted in what it prints.
type recorder struct {
	t      *testing.T
	URL    string // ws://127.0.0.1:PORT/ — what ahptui is given
	target string // the host's ws:// URL
	srv    *http.Server

	mu     sync.Mutex
	frames []frame
	mark   int    // index of the first frame of the current step
	step   string // the current step's name
	conns  int
}

type frame struct {
	at   time.Time
	conn int
	dir  string // "→host" or "←host"
	text string
}

func startRecorder(t *testing.T, target string) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("recorder: listen: %v", err)
	}
	r := &recorder{t: t, URL: "ws://" + ln.Addr().String() + "/", target: target}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	t.Cleanup(func() { _ = r.srv.Close() })
	return r
}

// Step starts a named step: on failure, Dump prints the frames since.
func (r *recorder) Step(name string) {
	r.mu.Lock()
	r.step, r.mark = name, len(r.frames)
	r.mu.Unlock()
	r.t.Logf("── step: %s", name)
}

// Frames returns the texts of the frames since the current step started,
// in the given direction ("→host", "←host" or "" for both).
func (r *recorder) Frames(dir string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, f := range r.frames[r.mark:] {
		if dir == "" || f.dir == dir {
			out = append(out, f.text)
		}
	}
	return out
}

// AllFrames is Frames over the whole test.
func (r *recorder) AllFrames(dir string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, f := range r.frames {
		if dir == "" || f.dir == dir {
			out = append(out, f.text)
		}
	}
	return out
}

// Dump logs the current step's frames (registered as a cleanup on failure
// by the suite).
func (r *recorder) Dump() {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	from := r.mark
	if os.Getenv("AHPTUI_INTEROP_DUMP_ALL") == "1" {
		from = 0
	}
	fmt.Fprintf(&b, "frames of step %q (%d):\n", r.step, len(r.frames)-from)
	start := time.Time{}
	for _, f := range r.frames[from:] {
		if start.IsZero() {
			start = f.at
		}
		text := strings.ReplaceAll(f.text, capimock.Token, "<token>")
		if len(text) > 2000 {
			text = text[:2000] + fmt.Sprintf("…(%d bytes)", len(f.text))
		}
		fmt.Fprintf(&b, "%8.3fs c%d %s %s\n", f.at.Sub(start).Seconds(), f.conn, f.dir, text)
	}
	r.t.Log(b.String())
}

func (r *recorder) add(conn int, dir string, data []byte) {
	r.mu.Lock()
	r.frames = append(r.frames, frame{at: time.Now(), conn: conn, dir: dir, text: string(data)})
	r.mu.Unlock()
}

func (r *recorder) serve(w http.ResponseWriter, req *http.Request) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	target := r.target
	if q := req.URL.RawQuery; q != "" {
		// A connection token (the SSH test's host requires one) goes
		// on to the host as it came.
		target += "?" + q
	}
	up, _, err := websocket.Dial(ctx, target, nil)
	if err != nil {
		http.Error(w, "host unreachable: "+err.Error(), http.StatusBadGateway)
		return
	}
	up.SetReadLimit(64 << 20)
	down, err := websocket.Accept(w, req, nil)
	if err != nil {
		_ = up.CloseNow()
		return
	}
	down.SetReadLimit(64 << 20)
	r.mu.Lock()
	r.conns++
	id := r.conns
	r.mu.Unlock()
	pipe := func(from, to *websocket.Conn, dir string) {
		defer cancel()
		for {
			typ, data, err := from.Read(ctx)
			if err != nil {
				code := websocket.CloseStatus(err)
				if code != -1 {
					_ = to.Close(code, "")
				} else {
					_ = to.CloseNow()
				}
				return
			}
			r.add(id, dir, data)
			if err := to.Write(ctx, typ, data); err != nil {
				return
			}
		}
	}
	go pipe(down, up, "→host")
	pipe(up, down, "←host")
	_ = up.CloseNow()
	_ = down.CloseNow()
}
