package client

import (
	"github.com/ahptui/ahptui/protocol"
)

// The mirror implements write-ahead reconciliation
// (spec/guide/reconciliation.md): per channel it keeps the host-confirmed
// state and the actions this client dispatched that the host has not echoed
// yet; the optimistic state (what the UI reads) is the confirmed state with
// the pending actions replayed on top.
//
// Every state it hands out is immutable: reducers never mutate their input,
// so a value once published stays valid while newer ones are computed. The
// mirror itself is not synchronised; Client guards it with its mutex.

// pendingAction is one optimistically applied, not yet echoed dispatch.
type pendingAction struct {
	channel   string
	clientSeq int64
	action    protocol.StateAction
}

// channelMirror is the reconciliation state of one subscribed channel.
type channelMirror struct {
	// confirmed is nil for a stateless channel (subscribed, no snapshot).
	confirmed protocol.SnapshotStateVariant
	// seq is the serverSeq the confirmed state reflects: the snapshot's
	// fromSeq, then each applied envelope's serverSeq. Envelopes at or below
	// it are already part of confirmed.
	seq        int64
	pending    []pendingAction
	optimistic protocol.SnapshotStateVariant
}

type mirror struct {
	// rules are the negotiated wire's reducer rules (set at each
	// handshake): the optimistic state must follow the host's.
	rules    protocol.Rules
	channels map[string]*channelMirror
}

func newMirror(clock protocol.Clock) *mirror {
	return &mirror{rules: protocol.Rules{Clock: clock}, channels: make(map[string]*channelMirror)}
}

// subscribed reports whether the mirror tracks channel (stateful or not).
func (m *mirror) subscribed(channel string) bool {
	_, ok := m.channels[channel]
	return ok
}

// channelList returns every tracked channel URI (order unspecified).
func (m *mirror) channelList() []string {
	out := make([]string, 0, len(m.channels))
	for ch := range m.channels {
		out = append(out, ch)
	}
	return out
}

// state returns the optimistic state of channel.
func (m *mirror) state(channel string) (protocol.SnapshotStateVariant, bool) {
	ch, ok := m.channels[channel]
	if !ok || ch.optimistic == nil {
		return nil, false
	}
	return ch.optimistic, true
}

// addStateless records a subscription to a channel without state.
func (m *mirror) addStateless(channel string) {
	if _, ok := m.channels[channel]; !ok {
		m.channels[channel] = &channelMirror{}
	}
}

// setSnapshot replaces the confirmed state of channel (creating it if
// needed). Pending actions are kept and replayed on top: after a reconnect
// they are re-dispatched, and the host's echo or its dedupe confirms them.
func (m *mirror) setSnapshot(channel string, state protocol.SnapshotStateVariant, fromSeq int64) {
	ch, ok := m.channels[channel]
	if !ok {
		ch = &channelMirror{}
		m.channels[channel] = ch
	}
	ch.confirmed = state
	ch.seq = fromSeq
	m.recompute(ch)
}

// drop forgets channel and its pending actions, returning them.
func (m *mirror) drop(channel string) []pendingAction {
	ch, ok := m.channels[channel]
	if !ok {
		return nil
	}
	delete(m.channels, channel)
	return ch.pending
}

// applyLocal applies a dispatch optimistically. It reports false when the
// channel has no state to apply it to.
func (m *mirror) applyLocal(p pendingAction) bool {
	ch, ok := m.channels[p.channel]
	if !ok || ch.confirmed == nil {
		return false
	}
	ch.pending = append(ch.pending, p)
	ch.optimistic = protocol.Reduce(ch.optimistic, p.action, m.rules)
	return true
}

// removePending drops the pending action clientSeq of channel and rebuilds
// the optimistic state; false when there is none.
func (m *mirror) removePending(channel string, clientSeq int64) bool {
	ch, ok := m.channels[channel]
	if !ok {
		return false
	}
	for i, p := range ch.pending {
		if p.clientSeq == clientSeq {
			ch.pending = append(ch.pending[:i:i], ch.pending[i+1:]...)
			m.recompute(ch)
			return true
		}
	}
	return false
}

// envelopeOutcome says what applyEnvelope did.
type envelopeOutcome struct {
	// known is false when the channel is not mirrored (envelope ignored).
	known bool
	// changed is true when the optimistic state may have changed.
	changed bool
	// rejected is the pending action the host refused, if any.
	rejected *pendingAction
	// confirmed is the pending action the host accepted, if any.
	confirmed *pendingAction
	// reason is the host's rejection text for rejected.
	reason string
}

// applyEnvelope reconciles one envelope from the host. myID is this
// client's clientId: an envelope with our origin confirms (or, with a
// rejectionReason, rolls back) the pending action with that clientSeq;
// any other envelope is applied to the confirmed state and the pending
// actions are rebased on it.
func (m *mirror) applyEnvelope(env protocol.ActionEnvelope, myID string) envelopeOutcome {
	ch, ok := m.channels[env.Channel]
	if !ok || ch.confirmed == nil {
		return envelopeOutcome{}
	}
	out := envelopeOutcome{known: true}
	own := -1
	if env.Origin != nil && env.Origin.ClientID == myID {
		for i, p := range ch.pending {
			if p.clientSeq == env.Origin.ClientSeq {
				own = i
				break
			}
		}
	}
	stale := env.ServerSeq <= ch.seq
	rejected := env.RejectionReason != nil
	if _, unknown := env.Action.Variant.(protocol.UnknownStateAction); unknown && own < 0 {
		// An action type this version does not define (an extension's
		// x- type, a later version's): it changes nothing, but its
		// serverSeq still counts as seen.
		if !stale {
			ch.seq = env.ServerSeq
		}
		return out
	}
	if own >= 0 {
		p := ch.pending[own]
		ch.pending = append(ch.pending[:own:own], ch.pending[own+1:]...)
		if rejected {
			out.rejected = &p
			out.reason = *env.RejectionReason
		} else {
			out.confirmed = &p
		}
	}
	if !stale && !rejected {
		// The host's action is authoritative (server wins): apply its copy,
		// not ours, in case the host adjusted it.
		ch.confirmed = protocol.Reduce(ch.confirmed, env.Action, m.rules)
		ch.seq = env.ServerSeq
	} else if !stale {
		ch.seq = env.ServerSeq
	}
	// A stale own echo means the confirmed state (a snapshot taken after the
	// host applied it) already holds its effect: dropping it from pending is
	// the whole reconciliation.
	if own >= 0 || (!stale && !rejected) {
		m.recompute(ch)
		out.changed = true
	}
	return out
}

// recompute rebuilds the optimistic state from confirmed + pending.
func (m *mirror) recompute(ch *channelMirror) {
	s := ch.confirmed
	if s == nil {
		ch.optimistic = nil
		return
	}
	for _, p := range ch.pending {
		s = protocol.Reduce(s, p.action, m.rules)
	}
	ch.optimistic = s
}

// allPending returns every pending action across channels, in clientSeq
// order (the order they were dispatched).
func (m *mirror) allPending() []pendingAction {
	var out []pendingAction
	for _, ch := range m.channels {
		out = append(out, ch.pending...)
	}
	sortPending(out)
	return out
}

func sortPending(ps []pendingAction) {
	// Insertion sort: the list is short and mostly sorted per channel.
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].clientSeq < ps[j-1].clientSeq; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}
