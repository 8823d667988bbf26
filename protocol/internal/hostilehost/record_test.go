package hostilehost_test

// Recording of the transcripts in testdata/transcripts: real sessions of
// protocol's Client against the demo host, one JSON-RPC frame per line.
// They seed FuzzDecode and FuzzUnionDecode and drive protocol's
// TestTranscriptReplay. Regenerate with
//
//	go test ./protocol/internal/hostilehost -run TestRecordTranscripts -record
//
// Line format (JSON Lines):
//
//	{"meta":{"source":…,"clientId":…,"clock":RFC3339}}   first line
//	{"conn":1,"dir":"in"|"out","frame":{…}}               one per frame ("in" = client → host)
//	{"final":{"<channel>":<state>,…}}                     last line: the client's state at the end
//
// The client runs on a fixed clock (meta.clock) so a replay through the
// reducers can reproduce timestamps exactly.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

var record = flag.Bool("record", false, "re-record testdata/transcripts from demohost sessions")

var transcriptClock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

type recorder struct {
	mu    sync.Mutex
	lines []json.RawMessage
}

func (r *recorder) tap(conn int64, dir demohost.Direction, frame []byte) {
	line, err := json.Marshal(struct {
		Conn  int64           `json:"conn"`
		Dir   string          `json:"dir"`
		Frame json.RawMessage `json:"frame"`
	}{conn, string(dir), json.RawMessage(frame)})
	if err != nil {
		return // not JSON: the host never sends such frames
	}
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
}

type session struct {
	t      *testing.T
	ctx    context.Context
	host   *demohost.Host
	client *client.Client
	rec    *recorder
	id     string
	events chan client.Event
}

func startSession(t *testing.T) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	rec := &recorder{}
	h, err := demohost.Start(ctx, demohost.Config{StepDelay: -1, Tap: rec.tap, Clock: func() time.Time { return transcriptClock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	id, err := client.LoadOrCreateClientID(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Dial(ctx, client.Options{
		URL: h.URL(), ClientID: id, ClientInfo: protocol.Implementation{Name: "ahptui-recorder"},
		Clock: func() time.Time { return transcriptClock }, PingInterval: time.Hour,
		ReconnectInitial: 5 * time.Millisecond, ReconnectMax: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s := &session{t: t, ctx: ctx, host: h, client: c, rec: rec, id: id, events: make(chan client.Event, 1<<16)}
	go func() {
		for e := range c.Events() {
			select {
			case s.events <- e:
			default:
			}
		}
	}()
	for _, ch := range []string{demohost.DemoSessionURI, demohost.DemoChatURI} {
		if err := c.Subscribe(ctx, ch); err != nil {
			t.Fatalf("subscribe %s: %v", ch, err)
		}
	}
	return s
}

// until waits for cond, re-checking after every client event.
func (s *session) until(what string, cond func() bool) {
	s.t.Helper()
	for !cond() {
		select {
		case <-s.events:
		case <-s.ctx.Done():
			s.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (s *session) startTurn(id, text string) {
	s.t.Helper()
	_, err := s.client.Dispatch(demohost.DemoChatURI, protocol.NewStateAction(protocol.ChatTurnStartedAction{
		TurnID: id, StartedAt: protocol.Timestamp(transcriptClock),
		Message: protocol.Message{Text: text, Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}},
	}))
	if err != nil {
		s.t.Fatal(err)
	}
}

func (s *session) turnDone(n int) func() bool {
	return func() bool {
		c, ok := s.client.Chat(demohost.DemoChatURI)
		return ok && c.ActiveTurn == nil && len(c.Turns) >= n
	}
}

// write closes the client (so every frame is in) and writes the file.
func (s *session) write(name string) {
	s.t.Helper()
	final := map[string]any{}
	for _, ch := range s.client.Channels() {
		if st, ok := s.client.State(ch); ok {
			final[ch] = st
		}
	}
	s.client.Close()
	s.host.Close()
	path := filepath.Join("..", "..", "..", "testdata", "transcripts", name)
	f, err := os.Create(path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enc := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			s.t.Fatal(err)
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	enc(map[string]any{"meta": map[string]any{
		"source":   "demohost session recorded by protocol/internal/hostilehost TestRecordTranscripts/" + name,
		"clientId": s.id, "clock": transcriptClock.Format(time.RFC3339),
	}})
	s.rec.mu.Lock()
	for _, l := range s.rec.lines {
		w.Write(l)
		w.WriteByte('\n')
	}
	n := len(s.rec.lines)
	s.rec.mu.Unlock()
	enc(map[string]any{"final": final})
	if err := w.Flush(); err != nil {
		s.t.Fatal(err)
	}
	s.t.Logf("%s: %d frames", name, n)
}

func TestRecordTranscripts(t *testing.T) {
	if !*record {
		t.Skip("pass -record to re-record testdata/transcripts")
	}
	t.Run("stream", func(t *testing.T) {
		s := startSession(t)
		s.startTurn("t1", "stream something")
		s.until("the streamed turn to complete", s.turnDone(1))
		s.write("demo-stream.jsonl")
	})
	t.Run("reconnect", func(t *testing.T) {
		s := startSession(t)
		s.startTurn("t1", "hello")
		s.until("the turn to start streaming", func() bool {
			c, ok := s.client.Chat(demohost.DemoChatURI)
			return ok && (c.ActiveTurn != nil && len(c.ActiveTurn.ResponseParts) > 0 || len(c.Turns) > 0)
		})
		s.host.DropConnections()
		s.until("the client to reconnect", func() bool { return s.host.ConnCount() > 0 && s.client.Status() == client.StatusReady })
		s.until("the turn to complete after the reconnect", s.turnDone(1))
		s.startTurn("t2", "stream again")
		s.until("the second turn to complete", s.turnDone(2))
		s.write("demo-reconnect.jsonl")
	})
	t.Run("ask", func(t *testing.T) {
		s := startSession(t)
		s.startTurn("t1", "ask me something")
		s.until("the host to ask for input", func() bool {
			c, ok := s.client.Chat(demohost.DemoChatURI)
			return ok && c.Status.Has(protocol.SessionStatusInputNeeded)
		})
		s.write("demo-ask.jsonl")
	})
	writeDecodeCorpus(t)
}

// writeDecodeCorpus turns the transcripts' frames into seed files of
// protocol/jsonrpc's FuzzDecode (one per distinct frame shape: direction,
// method or response kind, first 40 of each), so `go test` replays them.
func writeDecodeCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "jsonrpc", "testdata", "fuzz", "FuzzDecode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "transcripts", "*.jsonl"))
	perKind := map[string]int{}
	written := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var l struct {
				Dir   string          `json:"dir"`
				Frame json.RawMessage `json:"frame"`
			}
			if json.Unmarshal(line, &l) != nil || l.Dir == "" {
				continue
			}
			var kind struct {
				Method string          `json:"method"`
				Error  json.RawMessage `json:"error"`
			}
			_ = json.Unmarshal(l.Frame, &kind)
			k := l.Dir + " " + kind.Method
			if kind.Method == "" {
				k += fmt.Sprintf("response error=%v", kind.Error != nil)
			}
			if perKind[k]++; perKind[k] > 40 {
				continue
			}
			sum := sha256.Sum256(l.Frame)
			name := filepath.Join(dir, "transcript-"+hex.EncodeToString(sum[:8]))
			body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(l.Frame)) + ")\n"
			if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			written++
		}
	}
	t.Logf("wrote %d FuzzDecode seeds from the transcripts", written)
}
