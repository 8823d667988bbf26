package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
	"github.com/ahptui/ahptui/views"
)

// shortError is an error that knows its kind-first phrase for a narrow
// status line (host/dial.DialError: "connection refused", "HTTP 403: wrong
// or missing connection token"). An interface, so ui needs no dialer.
type shortError interface {
	error
	Short() string
}

// connFailure is how a failed connect reads: short leads with the kind,
// so it survives an 80-column status line; full is the whole error, for
// the message history (L) and the exit text.
func connFailure(err error) (short, full string) {
	full = err.Error()
	var se shortError
	var uv *client.UnsupportedProtocolVersionError
	switch {
	case errors.As(err, &uv):
		short = "version refused: " + uv.Summary()
		full = short
	case errors.As(err, &se):
		short = se.Short()
	case errors.Is(err, context.DeadlineExceeded):
		short = "timed out during initialize"
	case errors.Is(err, jsonrpc.ErrClosed):
		short = "closed during initialize"
	case errors.Is(err, errNoHost):
		short = err.Error()
	default:
		short = firstClause(full)
	}
	if !strings.Contains(full, short) {
		full = short + " (" + full + ")"
	}
	return short, full
}

// firstClause is text up to its first ": " after the "connect to URL"
// prefix, so an unknown failure still starts with what went wrong.
func firstClause(text string) string {
	if rest, ok := strings.CutPrefix(text, "connect to "); ok {
		if _, after, ok := strings.Cut(rest, ": "); ok {
			text = after
		}
	}
	return text
}

// retriesOnItsOwn says whether a failed first connect is tried again
// without the user: a host that refused every version we offer will not
// change its mind (VS Code does not retry -32005 either).
func retriesOnItsOwn(err error) bool {
	var uv *client.UnsupportedProtocolVersionError
	return !errors.As(err, &uv) && !errors.Is(err, errNoHost)
}

// connectFailed records a failed connect on the status line and, when its
// text is new, in the message history.
func (s *statusLine) connectFailed(err error, now time.Time) {
	short, full := connFailure(err)
	// The hint stays short so the reason keeps its room; what else the
	// user can do is in the history's whole text.
	s.conn = connInfo{state: views.ConnFailed, failedReason: short, failedHint: connectAdvice}
	if a := advice(err); a != "" && a != connectAdvice && !strings.Contains(full, a) {
		full += "; " + a
	}
	s.remember(full, now)
}

// remember adds a connection error's whole text to the history, unless
// it is the last entry already (a host that stays down says it once).
func (s *statusLine) remember(full string, now time.Time) {
	if n := len(s.history); n > 0 && s.history[n-1].Text == full {
		return
	}
	s.history = append(s.history, views.StatusEntry{At: now, Text: full, IsError: true})
	if len(s.history) > historyLen {
		s.history = s.history[len(s.history)-historyLen:]
	}
}

// connecting marks the start of a connect attempt (try counts from 1).
func (s *statusLine) connecting(try int, now time.Time) {
	s.conn = connInfo{state: views.ConnConnecting, attempt: try, since: now}
}

// progress is how the connect in flight is going: which attempt, and
// for how long.
func (s *statusLine) progress(now time.Time) string {
	if s.conn.state != views.ConnConnecting || s.conn.since.IsZero() {
		return ""
	}
	return fmt.Sprintf("attempt %d · %ds", max(1, s.conn.attempt), int(now.Sub(s.conn.since).Seconds()))
}

// connTickMsg redraws the connect progress once a second.
type connTickMsg struct{}

// connTick fires connTickMsg in a second.
func connTick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return connTickMsg{} })
}

// reconnecting records a reconnect attempt: the bar shows the cause's
// kind-first phrase, the history its whole text (once while it repeats).
func (s *statusLine) reconnecting(attempt int, cause error, now time.Time) {
	s.conn.state, s.conn.attempt, s.conn.cause = views.ConnReconnecting, attempt, ""
	if cause == nil {
		return
	}
	// The first cause is why the link dropped, not a failed handshake:
	// only a dial error has a phrase of its own.
	full := cause.Error()
	short := firstClause(full)
	var se shortError
	if errors.As(cause, &se) {
		short = se.Short()
	}
	s.conn.cause = short
	s.remember(full, now)
}
