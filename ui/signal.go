package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/views"
)

// signals rings the bell and sends a desktop notification when something
// starts waiting on the user while ahptui is not in front.
//
// Focus: View turns focus reporting on (CSI ?1004h). A terminal that has
// never reported focus may not report it at all, and then we cannot know
// whether the user sees us: we signal. Once any report arrived, we follow
// it: signal only while blurred.
type signals struct {
	focusKnown, focused bool
	// primed: what waited when ahptui started has been seen. Until then
	// nothing rings: the user who just started it is looking at it.
	primed bool
}

// onFocus records a focus report (tea.FocusMsg or tea.BlurMsg).
func (s *signals) onFocus(focused bool) {
	s.focusKnown, s.focused = true, focused
}

// away reports whether the user may not be looking at ahptui.
func (s *signals) away() bool { return !s.focusKnown || !s.focused }

// observeWaiting updates what waits on the user after a message and, on
// the edge of something new waiting, returns the signal: one per update
// that brings new items (a burst of approvals is one bell), naming the
// oldest new one and how many others came with it.
func (m *Model) observeWaiting() tea.Cmd {
	fresh := m.waits.observe(m.waiting(), m.openSession, m.clock())
	if m.hosts != nil {
		fresh = m.quietFresh(fresh)
	}
	m.inbox.sel = clampCursor(m.inbox.sel, len(m.waits.items))
	if !m.signals.primed {
		// The baseline is the first listing and the session it opens by
		// itself, once that session's chat is in: what waits then was
		// there before ahptui started, and the screen shows it.
		m.signals.primed = m.sessions.listedOnce && (m.openSession == "" || m.hasSess && m.hasChat)
		return nil
	}
	if len(fresh) == 0 || !m.cfg.Notify || !m.signals.away() {
		return nil
	}
	return tea.Raw(views.NotifySequence(m.cfg.NotifyTerm, "ahptui", notifyBody(fresh)))
}

// notifyBody says what started waiting: host, session title and what it
// is. The host is shown without query, fragment or user info (a `?tkn=`
// never reaches a notification, not even its name, if Config.Host
// carried one), and
// every host string is cleaned by views.NotifySequence.
func notifyBody(fresh []waitItem) string {
	w := fresh[0]
	var b strings.Builder
	host := authpkce.RedactAddress(w.host)
	if i := strings.IndexAny(host, "?#"); i >= 0 {
		host = host[:i]
	}
	if host != "" {
		b.WriteString(host)
		b.WriteString(" · ")
	}
	title := w.title
	if title == "" {
		title = "a session"
	}
	b.WriteString(title)
	b.WriteString(": ")
	b.WriteString(w.kind.String())
	if w.detail != "" {
		b.WriteString(" (" + w.detail + ")")
	}
	b.WriteString(" waits")
	if n := len(fresh) - 1; n > 0 {
		b.WriteString(fmt.Sprintf(", and %d more", n))
	}
	return b.String()
}
