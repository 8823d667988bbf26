package testhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ahptui/ahptui/internal/schemacheck"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/convert"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// wireTransport is one connection's socket as the host sees it. The host
// keeps its state and builds its frames in 1.0 shapes; on a connection
// that negotiated 0.6 this is where they turn into 0.6 (down) and the
// client's frames into 1.0 (up), as a 0.6 host built on the 1.0 model
// would. It also records every inbound frame and checks every frame, both
// ways, as it is on the socket, against the schema of the connection's
// wire.
type wireTransport struct {
	jsonrpc.Transport
	h  *Host
	id int

	mu   sync.Mutex
	wire protocol.Wire
	// calls maps the id of each request the host sent to its method, to
	// check (and convert) the client's answer; asked does the same for
	// the client's requests and the host's answers.
	calls map[string]string
	asked map[string]string
}

func (r *wireTransport) currentWire() protocol.Wire {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wire
}

// checkedWire is the wire whose schema judges the connection's frames:
// before (or without) a negotiation the 1.0 one, whose initialize is
// also 0.6's.
func (r *wireTransport) checkedWire() protocol.Wire {
	if w := r.currentWire(); w != protocol.WireUnknown {
		return w
	}
	return protocol.Wire10
}

// remember records id → method in m (r.mu held), creating m.
func remember(m *map[string]string, id *jsonrpc.ID, method string) {
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[id.String()] = method
}

// take returns and forgets the method of the request id answers.
func (r *wireTransport) take(m map[string]string, id *jsonrpc.ID) string {
	if id == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	method := m[id.String()]
	delete(m, id.String())
	return method
}

// Read takes the client's next frame: it learns the connection's wire
// from initialize (or, on reconnect, from what the client negotiated
// before), records and checks the frame, and converts it up on 0.6.
func (r *wireTransport) Read(ctx context.Context) ([]byte, error) {
	b, err := r.Transport.Read(ctx)
	if err != nil {
		return b, err
	}
	msg, derr := jsonrpc.Decode(b)
	if derr != nil {
		// The conn answers or drops it; still on record.
		r.h.record(Frame{Conn: r.id, Raw: b, Wire: r.currentWire()}, "", nil)
		return b, nil
	}
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.ID != nil {
			r.mu.Lock()
			remember(&r.asked, m.ID, m.Method)
			r.mu.Unlock()
		}
		r.learnWire(m)
		w := r.currentWire()
		r.h.record(Frame{Conn: r.id, Method: m.Method, Raw: b, Wire: w}, m.Method,
			r.check(func(c Checker) error { return c.ValidateMessage(b) }))
		if older(w) {
			up, err := convert.UpParams(w, m.Method, m.Params)
			if err != nil {
				r.h.report("client %s does not convert to 1.0: %v", m.Method, err)
				return b, nil
			}
			m.Params = up
			return jsonrpc.Encode(m)
		}
	case *jsonrpc.Response:
		method := r.take(r.calls, m.ID)
		w := r.currentWire()
		what := "response"
		if method != "" {
			what = "response to " + method
		}
		r.h.record(Frame{Conn: r.id, Raw: b, Wire: w}, what, r.check(func(c Checker) error {
			if method == "" {
				return c.ValidateMessage(b)
			}
			return c.ValidateResponse(method, b)
		}))
		if older(w) && method != "" && len(m.Result) > 0 {
			up, err := convert.UpResult(w, method, m.Result)
			if err != nil {
				r.h.report("client %s does not convert to 1.0: %v", what, err)
				return b, nil
			}
			m.Result = up
			return jsonrpc.Encode(m)
		}
	}
	return b, nil
}

// learnWire sets the connection's wire from initialize (the negotiation
// the handler is about to run) or reconnect (the clientId's earlier one).
func (r *wireTransport) learnWire(m *jsonrpc.Request) {
	w := protocol.WireUnknown
	switch m.Method {
	case "initialize":
		var p protocol.InitializeParams
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		v, err := r.h.negotiate(p.ProtocolVersions)
		if err != nil {
			return
		}
		w = protocol.WireOf(v)
	case "reconnect":
		var p protocol.ReconnectParams
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		r.h.mu.Lock()
		w = r.h.wires[p.ClientID]
		r.h.mu.Unlock()
	default:
		return
	}
	r.mu.Lock()
	r.wire = w
	r.mu.Unlock()
}

// Write sends a host frame: converted down on 0.6 (a 1.0-only action is
// not sent at all, as a 0.6 peer has no use for it), then checked.
func (r *wireTransport) Write(ctx context.Context, frame []byte) error {
	msg, err := jsonrpc.Decode(frame)
	if err != nil {
		return fmt.Errorf("testhost: host frame: %w", err)
	}
	w := r.currentWire()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.ID != nil {
			r.mu.Lock()
			remember(&r.calls, m.ID, m.Method)
			r.mu.Unlock()
		}
		if older(w) {
			down, err := convert.DownParams(w, m.Method, m.Params)
			if errors.Is(err, convert.ErrNotInVersion) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("testhost: %s to %s: %w", m.Method, w, err)
			}
			m.Params = down
			if frame, err = jsonrpc.Encode(m); err != nil {
				return err
			}
		}
		if err := r.check(func(c Checker) error { return c.ValidateMessage(frame) }); err != nil {
			r.h.report("host sent an invalid %s: %v", m.Method, err)
		}
	case *jsonrpc.Response:
		method := r.take(r.asked, m.ID)
		if older(w) && method != "" && len(m.Result) > 0 {
			down, err := convert.DownResult(w, method, m.Result)
			if err != nil {
				return fmt.Errorf("testhost: %s result to %s: %w", method, w, err)
			}
			m.Result = down
			if frame, err = jsonrpc.Encode(m); err != nil {
				return err
			}
		}
		if method != "" {
			if err := r.check(func(c Checker) error { return c.ValidateResponse(method, frame) }); err != nil {
				r.h.report("host sent an invalid response to %s: %v", method, err)
			}
		}
	}
	return r.Transport.Write(ctx, frame)
}

// check runs f with the checker of the connection's wire, if any.
func (r *wireTransport) check(f func(Checker) error) error {
	if r.h.opts.Schemas == nil {
		return nil
	}
	c := r.h.opts.Schemas(r.checkedWire())
	if c == nil {
		return nil
	}
	return f(c)
}

// record keeps an inbound frame (its bytes copied) and reports what its
// check found; what names the frame in that report.
func (h *Host) record(f Frame, what string, verr error) {
	if verr != nil {
		h.report("client sent an invalid frame: %s: %v", what, verr)
	}
	f.Raw = slices.Clone(f.Raw)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.frames = append(h.frames, f)
	h.signalLocked()
}

// report adds a failure the test sees when it ends. It takes its own lock:
// the host writes frames with h.mu held.
func (h *Host) report(format string, args ...any) {
	h.invalidMu.Lock()
	defer h.invalidMu.Unlock()
	h.invalid = append(h.invalid, fmt.Sprintf(format, args...))
}

// older reports whether w is converted at the connection: a wire before
// 1.0.
func older(w protocol.Wire) bool { return w != protocol.WireUnknown && w < protocol.Wire10 }

// SchemaChecks returns the 0.6, 0.7 and 1.0 schemas (loaded once per test
// binary) as Options.Schemas, and for 0.8 a check of what the client
// sends (check08).
func SchemaChecks(t testing.TB) func(protocol.Wire) Checker {
	t.Helper()
	v06, v07, v10 := schemacheck.MustLoad(t), schemacheck.MustForWire(t, protocol.Wire07), schemacheck.MustLoad10(t)
	c08 := check08{v07: v07, v10: v10}
	return func(w protocol.Wire) Checker {
		switch w {
		case protocol.Wire06:
			return v06
		case protocol.Wire07:
			return v07
		case protocol.Wire08:
			return c08
		}
		return v10
	}
}

// check08 judges a 0.8 connection without a 0.8.0 schema (../shared has
// none). What a client sends on 0.8 differs from 0.7 only in the actions
// 0.8 changed (customization decisions, DELTA §6.2), which are 1.0's
// shape: those frames are checked against the 1.0 schema, every other
// client frame against the 0.7 one. The host's frames (its notifications
// and responses, the converter's output) carry 0.8 shapes neither schema
// accepts as a whole, and are not checked.
type check08 struct{ v07, v10 *schemacheck.Validator }

// hostSent08 are the notifications only a host sends.
func hostSent08(method string) bool {
	return method == "action" || method == "auth/required" || strings.HasPrefix(method, "root/") || strings.HasPrefix(method, "otlp/")
}

// changed08 are the action types whose 0.8 shape is 1.0's, not 0.7's.
var changed08 = map[string]bool{
	"session/customizationToggled":  true,
	"session/customizationsChanged": true,
	"session/customizationUpdated":  true,
}

func (c check08) ValidateMessage(frame []byte) error {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Action struct {
				Type string `json:"type"`
			} `json:"action"`
		} `json:"params"`
	}
	if err := json.Unmarshal(frame, &m); err != nil {
		return c.v07.ValidateMessage(frame) // it says what is wrong
	}
	switch {
	case m.Method == "" || hostSent08(m.Method):
		return nil
	case m.Method == "dispatchAction" && changed08[m.Params.Action.Type]:
		return c.v10.ValidateMessage(frame)
	}
	return c.v07.ValidateMessage(frame)
}

func (c check08) ValidateResponse(string, []byte) error { return nil }
