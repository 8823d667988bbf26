package hostilehost

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// PortThief is the hostile host of issue 21's finding 3: a process of
// another user that takes the port a VS Code agent host listed in the
// registry had, once that host died, and serves AHP there. A client that
// trusted the registry once, at start, would reconnect to it, send the
// registry's connection token as ?tkn= and push its sign-ins with
// authenticate. It counts the TCP connections it accepts, the upgrades
// that carried a token and the authenticate requests it got: a client
// that verifies its peer before every dial leaves the last two at zero.
type PortThief struct {
	*Host
	ln                    net.Listener
	conns, tokens, authns atomic.Int64
	on                    func(event string)
}

// StartPortThief serves states on addr (127.0.0.1:PORT), retrying for a
// few seconds while the port is still held by the host that is closing.
// on, when set, is told each event as it happens: "conn", "token" or
// "authenticate".
func StartPortThief(addr string, states map[string]json.RawMessage, on func(event string)) (*PortThief, error) {
	var ln net.Listener
	var err error
	for range 50 {
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return nil, fmt.Errorf("hostilehost: listen on %s: %w", addr, err)
	}
	p := &PortThief{on: on}
	tap := func(_ int64, dir string, frame []byte) {
		var req struct {
			Method string `json:"method"`
		}
		if dir == "in" && json.Unmarshal(frame, &req) == nil && req.Method == "authenticate" {
			p.authns.Add(1)
			p.tell("authenticate")
		}
	}
	h := &Host{
		cfg:    Config{States: states, Tap: tap},
		ln:     &countingListener{Listener: ln, p: p},
		conns:  make(chan *Conn, 64),
		states: map[string]json.RawMessage{},
		live:   map[*Conn]struct{}{},
	}
	for k, v := range states {
		h.states[k] = v
	}
	h.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("tkn") != "" {
			p.tokens.Add(1)
			p.tell("token")
		}
		h.serve(w, r)
	})}
	p.Host, p.ln = h, h.ln
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		if err := h.srv.Serve(h.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return
		}
	}()
	return p, nil
}

func (p *PortThief) tell(event string) {
	if p.on != nil {
		p.on(event)
	}
}

// Connections is how many TCP connections reached the thief.
func (p *PortThief) Connections() int64 { return p.conns.Load() }

// Tokens is how many upgrades carried a connection token (?tkn=).
func (p *PortThief) Tokens() int64 { return p.tokens.Load() }

// Authenticates is how many authenticate requests arrived.
func (p *PortThief) Authenticates() int64 { return p.authns.Load() }

type countingListener struct {
	net.Listener
	p *PortThief
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.p.conns.Add(1)
		l.p.tell("conn")
	}
	return c, err
}
