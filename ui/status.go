package ui

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/views"
)

// statusLine is the status bar's state: the connection and the last
// message or error.
type statusLine struct {
	conn connInfo
	text string
	// notice is Config.Notices, shown until the first key.
	notice string
	isErr  bool
	at     time.Time
	// ttl is how long an informational message stays (statusTTL; 0: no
	// timer, when the ticker is off). seq counts the messages, so an
	// expiry timer drops only the one it was set for.
	ttl time.Duration
	seq int
	// gone says the shown message has become false ("reconnecting" once
	// the connection is back); nil when only time ends it.
	gone func() bool
	// readies counts connections made ready, for a message that holds
	// until the next one.
	readies int
	// exitErr is the last error shown that is not a refused key, ""
	// once an informational message replaced it: what main prints on exit.
	exitErr string
	// history is every message shown, oldest first, at most
	// historyLen: the bar cuts a long one to its width, the history
	// (Global.Messages) shows it whole.
	history []views.StatusEntry
}

// historyLen is how many status messages the history keeps.
const historyLen = 100

// statusTTL is how long an informational status message stays; errors stay
// until the next message, so one is never missed.
const statusTTL = 10 * time.Second

type connInfo struct {
	state        views.ConnState
	attempt      int
	cause        string
	failedReason string
	failedHint   string
	version      string
	nextTry      time.Time // when a failed connect is tried again (zero: not)
	since        time.Time // when the connect in flight started
}

// statusTTLFor is the status line's ttl for Config.Tick: none when the
// ticker is off (golden and model tests drive time themselves).
func statusTTLFor(tick time.Duration) time.Duration {
	if tick < 0 {
		return 0
	}
	return statusTTL
}

// statusMsg is a message for the status line. Components never write the
// status line; they return reportInfo or reportError and the root hands
// the message to it, so what the bar says is decided in one place.
type statusMsg struct {
	text string
	err  error
	gone func() bool // the message is dropped once this holds (nil: by time only)
}

// statusExpiredMsg is an informational message's time up; seq names it.
type statusExpiredMsg struct{ seq int }

// reportInfo says text on the status line ("" clears it).
func reportInfo(text string) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: text} }
}

// reportInfoUntil says text until gone holds (or its time is up): a
// message a later state makes false is not left on the bar.
func reportInfoUntil(text string, gone func() bool) tea.Cmd {
	return func() tea.Msg { return statusMsg{text: text, gone: gone} }
}

// reportError shows err on the status line, with what the user can do
// about it (advice), until the next message.
func reportError(err error) tea.Cmd {
	return func() tea.Msg { return statusMsg{err: err} }
}

// notices shows Config.Notices: they stay on the status line until the
// first key (a failed connect's retries must not wipe them before they
// are read), and the history (L) keeps them.
func (s *statusLine) notices(ns []string, now time.Time) tea.Cmd {
	if len(ns) == 0 {
		return nil
	}
	s.notice = strings.Join(ns, "; ")
	s.history = append(s.history, views.StatusEntry{At: now, Text: s.notice, IsError: true})
	return nil
}

// update takes one message for the status line; for an informational
// one it returns the timer that ends it, as an idle app has no tick soon
// enough to.
func (s *statusLine) update(msg statusMsg, now time.Time) tea.Cmd {
	s.at, s.gone = now, msg.gone
	s.seq++
	if msg.err != nil {
		s.text, s.isErr = withAdvice(msg.err), true
		if !refused(msg.err) {
			s.exitErr = s.text
		}
	} else {
		s.text, s.isErr = msg.text, false
		if s.text != "" {
			s.exitErr = ""
		}
	}
	if s.text != "" {
		whole := s.text
		if msg.err != nil {
			whole = wholeText(msg.err, s.text)
		}
		s.history = append(s.history, views.StatusEntry{At: now, Text: whole, IsError: s.isErr})
		if len(s.history) > historyLen {
			s.history = slices.Delete(s.history, 0, len(s.history)-historyLen)
		}
	}
	if s.isErr || s.text == "" {
		return nil
	}
	seq, ttl := s.seq, s.ttl
	if ttl <= 0 {
		return nil
	}
	return tea.Tick(ttl, func(time.Time) tea.Msg { return statusExpiredMsg{seq: seq} })
}

// expired drops the informational message seq names, if it still shows.
func (s *statusLine) expired(seq int) {
	if seq == s.seq && !s.isErr {
		s.text, s.gone = "", nil
	}
}

// dropFalse drops the message once a later state made it false.
func (s *statusLine) dropFalse() {
	if s.gone != nil && !s.isErr && s.gone() {
		s.text, s.gone = "", nil
	}
}

// lastError is the last error the status line showed, "" when an
// informational message replaced it; a refused key does not count.
func (s *statusLine) lastError() string { return s.exitErr }

// expire drops an informational message older than statusTTL.
func (s *statusLine) expire(now time.Time) {
	if !s.isErr && s.text != "" && now.Sub(s.at) >= statusTTL {
		s.text = ""
	}
}

// view is the status bar width cells wide for host, counting needsInput
// things that wait on the user. waits, when set, says a question waits
// behind a text field; it outranks the last message until answered.
func (s *statusLine) view(th views.Theme, host string, needsInput, width int, now time.Time, waits string) string {
	next := ""
	if s.conn.state == views.ConnFailed && !s.conn.nextTry.IsZero() {
		next = fmt.Sprintf("next try in %ds", max(0, int(math.Ceil(s.conn.nextTry.Sub(now).Seconds()))))
	}
	return views.RenderStatusBar(th, views.StatusBar{NextTry: next,
		Host: host, ProtocolVersion: s.conn.version, State: s.conn.state,
		Attempt: s.conn.attempt, Cause: s.conn.cause, Progress: s.progress(now),
		FailedReason: s.conn.failedReason, FailedHint: s.conn.failedHint,
		NeedsInput: needsInput, Message: cmp.Or(waits, s.notice, s.text),
		MessageIsError: waits == "" && (s.notice != "" || s.isErr),
	}, width)
}
