// Package badhost serves, on 127.0.0.1, the hosts a test needs to see a
// connection fail: one that never answers, one that refuses every
// version, one that is not there. Tests of every layer (client, hosts,
// ui, cli, e2e) use the same ones.
package badhost

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// Silent accepts TCP connections and never answers: a hung host. Its
// connections close when the test ends.
func Silent(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "ws://" + l.Addr().String() + "/"
}

// WS serves the WebSocket upgrade and hands each connection's first frame
// to answer; the connection closes when answer returns.
func WS(t testing.TB, answer func(tp jsonrpc.Transport, first []byte)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tp, err := jsonrpc.Accept(w, r, jsonrpc.AcceptOptions{})
		if err != nil {
			return
		}
		defer tp.Close("bye")
		frame, err := tp.Read(r.Context())
		if err != nil {
			return
		}
		answer(tp, frame)
	}))
	t.Cleanup(srv.Close)
	return "ws://" + srv.Listener.Addr().String() + "/"
}

// RefusingVersion answers initialize with -32005: it speaks AHP 2.0.0
// only. It stays open until the client hangs up, as a real host does.
func RefusingVersion(t testing.TB) string {
	t.Helper()
	return WS(t, func(tp jsonrpc.Transport, first []byte) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(first, &req)
		resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{
			"code": jsonrpc.UnsupportedProtocolVersion, "message": "unsupported protocol version",
			"data": map[string]any{"supportedVersions": []string{"2.0.0"}}}})
		_ = tp.Write(t.Context(), resp)
		_, _ = tp.Read(t.Context())
	})
}

// ClosedAddr is a 127.0.0.1 address nothing listens on (it was just
// released): an unreachable host.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// Closed is ClosedAddr as a ws:// URL.
func Closed(t testing.TB) string { return "ws://" + ClosedAddr(t) + "/" }
