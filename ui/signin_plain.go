package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/host/trust"
	"github.com/ahptui/ahptui/views"
)

// plainConsent is the user's answer, for this run only, to sending saved
// tokens to a host reached over plain ws://. Such a connection proves
// nothing about who listens: a process that took the remembered loopback
// port would get the token. Only a host found in VS Code's owner-only
// registry with a live pid (Config.RegistryHost) gets them without asking.
type plainConsent struct {
	answered, allowed bool
	// pending are the pushes that wait for the answer.
	pending []savedPush
}

// savedPush is a saved token's push, held until it may go.
type savedPush struct {
	resource string
	cmd      tea.Cmd
}

// plainAnswer is this run's answer to sending saved tokens over plain
// ws://, for trust.Decide (which knows which hosts need one).
func (si *signIn) plainAnswer() trust.PlainAnswer {
	switch {
	case !si.plain.answered:
		return trust.PlainUnasked
	case si.plain.allowed:
		return trust.PlainYes
	}
	return trust.PlainNo
}

// askPlainHost asks, once per run, before the first saved token goes to a
// plain ws:// host. Yes sends every token that waits and lets later ones
// go without asking until ahptui exits; no sends none this run. Nothing
// is remembered: the next run asks again.
func (si *signIn) askPlainHost() {
	si.ask(signInAsk{
		key: "plain",
		view: views.AskView{
			Title:    "Send saved sign-ins over ws://?",
			Question: "Send your saved sign-ins to host " + si.cfg.Host + "?",
			Lines: []string{
				"It is reached over plain ws://, which proves nothing about who listens there:",
				"any program on this machine could have taken the address.",
				"Your answer lasts until ahptui exits.",
			},
			Yes: "send them", No: "do not",
		},
		yes: si.allowPlain,
		no: func() tea.Cmd {
			si.plain.answered, si.plain.pending = true, nil
			return reportInfo("saved sign-ins not sent to this ws:// host; sign in from a prompt if you need one")
		},
	})
}

// holdForPlain keeps push until the user answers askPlainHost; a newer
// push for the same resource (after a reconnect) replaces it.
func (si *signIn) holdForPlain(push savedPush) {
	for i, p := range si.plain.pending {
		if p.resource == push.resource {
			si.plain.pending[i] = push
			return
		}
	}
	si.plain.pending = append(si.plain.pending, push)
	si.askPlainHost()
}

// allowPlain records a yes for this run and sends what waited for it. A
// yes to "use your sign-in here?" on a plain host, whose question says
// the host is plain ws://, counts as this yes too.
func (si *signIn) allowPlain() tea.Cmd {
	si.plain.answered, si.plain.allowed = true, true
	var cmds []tea.Cmd
	for _, p := range si.plain.pending {
		si.hostHolds[p.resource] = true
		cmds = append(cmds, p.cmd)
	}
	si.plain.pending = nil
	return tea.Batch(cmds...)
}
