package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// grantKeeper is what *authpkce.Authenticator offers to list saved grants
// and forget one (revoking it at its authorization server, RFC 7009).
type grantKeeper interface {
	Grants() []authpkce.StoredGrant
	Forget(ctx context.Context, g authpkce.StoredGrant) (authpkce.Forgotten, error)
}

// signInList is the sheet of saved sign-ins: what the user signed in to,
// where and until when, with a key to forget one.
type signInList struct {
	open   bool
	grants []authpkce.StoredGrant
	// hand: the resources of tokens given by hand the host holds this
	// run, listed after the saved grants.
	hand []string
	sel  int
	note string
	busy bool // a Forget is in flight
	// asking: x was pressed on the selected grant; forgetting waits on
	// the user's yes (like disposing a session), as it cannot be undone.
	asking bool
}

// forgottenMsg is Forget's outcome, and the host's answer to the empty
// token when one was sent.
type forgottenMsg struct {
	grant     authpkce.StoredGrant
	forgotten authpkce.Forgotten
	err       error
	// hostCleared: the empty-token authenticate went to the connected
	// host; hostErr is its answer.
	hostCleared bool
	hostErr     error
	// byHand: a token given by hand, never saved: nothing was revoked
	// at an authorization server.
	byHand bool
}

// hostRevokesOnEmptyToken reports whether the connected host speaks the
// 1.0 wire (1.x, 0.9.x, VS Code's 0.10.x), where `authenticate` with an
// empty token revokes the one it holds for a resource. 0.6 has no such
// meaning (an empty token there is an invalid request), so nothing is sent
// to it.
func hostRevokesOnEmptyToken(c Client) bool {
	return c != nil && c.Wire() == protocol.Wire10
}

// forgetText says, under the sheet, what forgetting the selected grant
// does on this host: the wire decides whether the host can be told.
func (si *signIn) forgetText() string {
	l := &si.list
	if si.client == nil || l.sel >= len(l.grants) {
		return ""
	}
	if !hostRevokesOnEmptyToken(si.client) {
		return "This host speaks AHP 0.6: it cannot be told to drop a token it was given, and keeps it until it expires."
	}
	if si.hostKnows(l.grants[l.sel].Resource) {
		return "Forgetting also tells this host (AHP 1.0) to drop the token."
	}
	return ""
}

// hostKnows reports whether the host may hold a token for resource: it
// accepted one on this connection, or it names the resource now. Only
// then is it sent the empty-token authenticate, which names a resource it
// must know.
func (si *signIn) hostKnows(resource string) bool {
	return si.hostHolds[resource] || authpkce.CheckAdvertised(resource, si.advertised()) == nil
}

// openSignIns opens the sheet with the grants saved now.
func (si *signIn) openSignIns() tea.Cmd {
	src, ok := si.cfg.Auth.(grantKeeper)
	hand := si.handTokens()
	if !ok && len(hand) == 0 {
		return reportInfo("no saved sign-ins: this build keeps none")
	}
	si.list = signInList{open: true, hand: hand}
	if ok {
		si.list.grants = src.Grants()
	}
	return nil
}

// handTokens is the resources the host holds a token given by hand for
// (pasted, or from gh), in order.
func (si *signIn) handTokens() []string {
	var out []string
	kept := map[string]bool{}
	if src, ok := si.cfg.Auth.(grantKeeper); ok {
		hid, _ := authpkce.HostID(si.cfg.Host)
		for _, g := range src.Grants() {
			if g.ByHand && g.Host == hid {
				kept[g.Resource] = true // listed as the saved grant it is
			}
		}
	}
	for res, p := range si.agent.pushes {
		if p != nil && p.held && p.busy == "" && !kept[res] {
			out = append(out, res)
		}
	}
	slices.Sort(out)
	return out
}

// rowCount is the sheet's rows: saved grants, then tokens given by hand.
func (l *signInList) rowCount() int { return len(l.grants) + len(l.hand) }

// handAt is the hand token's resource at row i, when row i is one.
func (l *signInList) handAt(i int) (string, bool) {
	if i < len(l.grants) || i >= l.rowCount() {
		return "", false
	}
	return l.hand[i-len(l.grants)], true
}

// keySignIns handles keys while the sheet is open.
func (si *signIn) keySignIns(msg tea.KeyPressMsg) tea.Cmd {
	k, l := si.keys.SignIns, &si.list
	if l.asking {
		switch {
		case key.Matches(msg, si.keys.Confirm.Yes):
			l.asking = false
			if res, ok := l.handAt(l.sel); ok && !l.busy {
				return si.forgetHand(res)
			}
			if l.busy || l.sel >= len(l.grants) {
				return nil
			}
			l.busy, l.note = true, "forgetting…"
			return si.forget(l.grants[l.sel])
		case key.Matches(msg, si.keys.Confirm.No):
			l.asking = false
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Close):
		si.list = signInList{}
	case cursorKey(msg, k.Up, k.Down):
		l.sel = moveCursor(msg, k.Up, l.sel, l.rowCount())
	case key.Matches(msg, k.Forget):
		l.asking = !l.busy && l.sel < l.rowCount()
	}
	return nil
}

// forgetQuestion is the question x asks about the selected grant, ""
// when none is asked.
func (si *signIn) forgetQuestion() string {
	l := &si.list
	if res, ok := l.handAt(l.sel); ok && l.asking {
		return fmt.Sprintf("Forget the token you gave for %s? The host is told to drop it, and the agent asks for a sign-in again.",
			views.SanitizeLine(res))
	}
	if !l.asking || l.sel >= len(l.grants) {
		return ""
	}
	g := l.grants[l.sel]
	return fmt.Sprintf("Forget the sign-in to %s and revoke it at %s? Using it again needs a new sign-in.",
		views.SanitizeLine(g.Resource), hostOf(g.Issuer))
}

// forget drops g and revokes it at its authorization server; when the
// connected host speaks 1.0 and was told about the resource, it sends the
// empty-token authenticate that revokes it there too.
func (si *signIn) forget(g authpkce.StoredGrant) tea.Cmd {
	src, _ := si.cfg.Auth.(grantKeeper)
	ctx, c := si.ctx, si.client
	tellHost := hostRevokesOnEmptyToken(c) && si.hostKnows(g.Resource)
	if g.ByHand {
		delete(si.agent.pushes, g.Resource) // not "in use this run" either
	}
	si.log.Debug("forget a sign-in", "resource", g.Resource, "host", g.Host, "tell_host", tellHost)
	return func() tea.Msg {
		out := forgottenMsg{grant: g}
		out.forgotten, out.err = src.Forget(ctx, g)
		if out.err == nil && c != nil {
			// Whatever the host can be told, this connection must not
			// push the token again after a reconnect.
			c.ForgetToken(g.Resource)
		}
		if out.err == nil && out.forgotten.ClearOnHost && tellHost {
			out.hostCleared = true
			out.hostErr = c.Authenticate(ctx, g.Resource, "", nil, time.Time{})
		}
		return out
	}
}

func (si *signIn) onForgotten(msg forgottenMsg) tea.Cmd {
	l := &si.list
	l.busy = false
	res := views.SanitizeLine(msg.grant.Resource)
	if msg.err != nil {
		l.note = "not forgotten: " + msg.err.Error()
		return reportError(fmt.Errorf("forget the sign-in to %s: %w", res, msg.err))
	}
	if msg.hostCleared && msg.hostErr == nil {
		delete(si.hostHolds, msg.grant.Resource)
	}
	if src, ok := si.cfg.Auth.(grantKeeper); ok && l.open {
		l.grants = src.Grants()
	}
	l.hand = si.handTokens()
	l.sel = clampCursor(l.sel, l.rowCount())
	parts := []string{"forgot the sign-in to " + res}
	if msg.byHand {
		parts = []string{"forgot the token for " + res}
	}
	f := msg.forgotten
	switch {
	case f.Revoked:
		parts = append(parts, "revoked at "+hostOf(msg.grant.Issuer))
	case f.RevokeErr != nil:
		parts = append(parts, "not revoked at "+hostOf(msg.grant.Issuer)+": "+f.RevokeErr.Error())
	}
	switch {
	case msg.hostCleared && msg.hostErr == nil:
		parts = append(parts, "the host dropped it")
	case msg.hostCleared:
		parts = append(parts, "the host refused to drop it: "+msg.hostErr.Error())
	case f.ClearOnHost && si.client != nil && !hostRevokesOnEmptyToken(si.client):
		parts = append(parts, "this host may keep it until it expires (AHP 0.6 cannot revoke)")
	}
	l.note = strings.Join(parts, "; ")
	if f.RevokeErr != nil || (msg.hostCleared && msg.hostErr != nil) {
		return reportError(errors.New(l.note))
	}
	return reportInfo(l.note)
}

// signInRows is the sheet's rows in the views' words.
func (si *signIn) signInRows() []views.SignInRow {
	rows := make([]views.SignInRow, len(si.list.grants), si.list.rowCount())
	for i, g := range si.list.grants {
		rows[i] = views.SignInRow{Resource: g.Resource, Issuer: g.Issuer, Host: g.Host, Scopes: g.Scopes,
			Expiry: g.Expiry, Refreshable: g.Refreshable, ByHand: g.ByHand, Saved: true}
	}
	for _, res := range si.list.hand {
		rows = append(rows, views.SignInRow{Resource: res, Host: si.cfg.Host, ByHand: true})
	}
	return rows
}

// forgetHand drops a token given by hand: this connection stops pushing
// it after a reconnect, and a 1.0 host is told to drop it (the empty-token
// authenticate). Nothing was saved, so nothing else is revoked.
func (si *signIn) forgetHand(res string) tea.Cmd {
	l := &si.list
	delete(si.agent.pushes, res)
	l.hand = si.handTokens()
	l.sel = clampCursor(l.sel, l.rowCount())
	c, ctx := si.client, si.ctx
	if c == nil {
		l.note = "forgot the token for " + views.SanitizeLine(res)
		return reportInfo(l.note)
	}
	c.ForgetToken(res)
	tell := hostRevokesOnEmptyToken(c) && si.hostKnows(res)
	delete(si.hostHolds, res)
	if !tell {
		l.note = "forgot the token for " + views.SanitizeLine(res) + "; this host may keep it until it expires (AHP 0.6 cannot revoke)"
		return reportInfo(l.note)
	}
	l.busy, l.note = true, "forgetting…"
	return func() tea.Msg {
		return forgottenMsg{grant: authpkce.StoredGrant{Resource: res}, hostCleared: true,
			hostErr: c.Authenticate(ctx, res, "", nil, time.Time{}), byHand: true}
	}
}
