package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// scanMessage fills w from frame, which the caller has checked with
// json.Valid. Decoding the envelope by hand instead of json.Unmarshal saves
// a second and third pass over the (possibly large) params and most
// allocations on the streaming hot path; only the envelope's few members are
// looked at, params and result stay raw.
//
// Member names are matched exactly (JSON-RPC is case-sensitive) and a
// repeated member keeps its last value, as encoding/json would.
func scanMessage(frame []byte, w *wireMessage) error {
	s := scanner{b: frame}
	s.ws()
	switch {
	case s.i >= len(s.b):
		return errors.New("empty frame")
	case s.b[s.i] == '[':
		return ErrBatchUnsupported
	case s.b[s.i] != '{':
		return errors.New("frame is not a JSON object")
	}
	// One copy backs every raw member, so the message never aliases the
	// caller's buffer and costs a single allocation however many members.
	var buf []byte
	raw := func(v []byte, at int) json.RawMessage {
		if buf == nil {
			buf = append([]byte(nil), frame...)
		}
		return json.RawMessage(buf[at : at+len(v) : at+len(v)])
	}
	var typeErr error
	s.i++
	s.ws()
	if s.b[s.i] == '}' {
		return nil
	}
	for {
		ks := s.i
		s.skipString()
		key := s.b[ks+1 : s.i-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			if err := json.Unmarshal(s.b[ks:s.i], &k); err != nil {
				return err
			}
			key = []byte(k)
		}
		s.ws()
		s.i++ // ':'
		s.ws()
		vs := s.i
		s.skipValue()
		val := s.b[vs:s.i]
		isNull := string(val) == "null"
		switch string(key) {
		case "jsonrpc":
			switch {
			case string(val) == `"2.0"`:
				w.JSONRPC = Version
			case isNull:
				w.JSONRPC = ""
			case val[0] == '"':
				var v string
				_ = json.Unmarshal(val, &v)
				w.JSONRPC = v
			default:
				typeErr = errors.New("jsonrpc member must be a string")
			}
		case "method":
			switch {
			case isNull:
				w.Method = nil
			case val[0] == '"':
				m := internMethod(val)
				w.Method = &m
			default:
				typeErr = errors.New("method must be a string")
			}
		case "id":
			w.ID = raw(val, vs)
		case "params":
			if isNull {
				w.Params = nil // treat as absent: some peers spell it null
			} else {
				w.Params = raw(val, vs)
			}
		case "result":
			w.Result = raw(val, vs)
		case "error":
			w.Error = nil
			if !isNull {
				e := new(Error)
				if err := json.Unmarshal(val, e); err != nil {
					typeErr = fmt.Errorf("malformed error object: %w", err)
				} else {
					w.Error = e
				}
			}
		}
		s.ws()
		if s.b[s.i] == ',' {
			s.i++
			s.ws()
			continue
		}
		break // '}'
	}
	return typeErr
}

// knownMethods interns AHP method names so the hot path does not allocate a
// string per frame; map lookups keyed by string(bytes) do not allocate.
var knownMethods = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{
		"action", "dispatchAction", "initialize", "reconnect", "ping",
		"subscribe", "unsubscribe", "authenticate", "listSessions",
		"createSession", "disposeSession", "fetchTurns", "createChat",
		"disposeChat", "createTerminal", "disposeTerminal", "completions",
		"resourceRead", "resourceWrite", "resourceList", "resourceCopy",
		"resourceDelete", "resourceMove", "resourceResolve", "resourceMkdir",
		"resourceRequest", "auth/required", "root/sessionAdded",
		"root/sessionRemoved", "root/sessionSummaryChanged", "root/progress",
	} {
		m[n] = n
	}
	return m
}()

func internMethod(quoted []byte) string {
	inner := quoted[1 : len(quoted)-1]
	if m, ok := knownMethods[string(inner)]; ok {
		return m
	}
	// The fast path only for valid UTF-8: json.Unmarshal turns invalid
	// bytes into U+FFFD, and Decode must agree with it or a re-encoded
	// message would change on every round trip.
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(quoted, &s) // valid: the frame passed json.Valid
	return s
}

// scanner walks JSON already known to be valid, so it only has to find
// where values end.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) skipString() {
	s.i++ // opening quote
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
			continue
		case '"':
			s.i++
			return
		}
		s.i++
	}
}

func (s *scanner) skipValue() {
	switch s.b[s.i] {
	case '"':
		s.skipString()
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				s.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return
				}
			}
			s.i++
		}
	default: // number, true, false, null
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.i++
		}
	}
}
