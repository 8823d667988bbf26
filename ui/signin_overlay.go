package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/views"
)

// copyNote is what the copy key says it did. OSC 52 has no answer: the
// terminal (or tmux, or the SSH client) may drop it silently, so claiming
// "copied" would be a guess; the URL's rows hold nothing else, so selecting
// them is the way that always works.
const copyNote = "sent to the terminal's clipboard (OSC 52); if nothing was copied, select the URL above"

// pasteField is the one-line field in the sign-in overlay for the address
// the browser landed on, for a browser on another machine whose redirect
// to 127.0.0.1 reaches nothing: authpkce takes the code and state from it
// with the same checks as its loopback.
type pasteField struct {
	open     bool
	resource string // the flow it completes
	// in edits the address like every single-line input (bubbles
	// textinput's keys); it is drawn redacted (overlayExtras), never by
	// its own View.
	in   textinput.Model
	err  string
	busy bool
}

// newPasteField is an empty field for the flow of resource.
func newPasteField(resource string) pasteField {
	in := textinput.New()
	in.Prompt = ""
	in.CharLimit = maxPasted
	// A terminal's paste arrives as a bracketed paste; ctrl+v would read
	// the system clipboard through an outside tool.
	in.KeyMap.Paste.SetEnabled(false)
	in.KeyMap.AcceptSuggestion.SetEnabled(false)
	in.Focus()
	return pasteField{open: true, resource: resource, in: in}
}

// pasteDoneMsg is authpkce's answer to a pasted address.
type pasteDoneMsg struct {
	resource string
	err      error
}

// maxPasted bounds the field: a redirect with a code and state is a few
// hundred bytes; a stray paste of a file is not an address.
const maxPasted = 8 << 10

// keyOverlay handles the sign-in keys of the overlay over waiting flow g:
// cancel, copy and paste. It reports false for a key it does not own.
func (si *signIn) keyOverlay(msg tea.KeyPressMsg, g *grantFlow) (tea.Cmd, bool) {
	if si.paste.open {
		return si.keyPaste(msg, g), true
	}
	k := si.keys.Grant
	switch {
	case key.Matches(msg, k.Cancel):
		return si.cancelFlow(g), true
	case key.Matches(msg, k.CopyURL):
		u := g.url
		if g.grant != nil && g.grant.Device() != nil {
			u = g.grant.Device().VerificationURI
		}
		si.note = copyNote
		return tea.Batch(tea.SetClipboard(u), reportInfo(copyNote)), true
	case key.Matches(msg, k.ShowURL):
		return si.showURLAlone(g), true
	case key.Matches(msg, k.Device):
		return si.switchToDevice(g), true
	case key.Matches(msg, k.Token):
		// The way the agent's sign-in offers too: a token the user has
		// (a personal access token, say), pushed with authenticate for
		// the resource the host advertised; the browser flow ends.
		res := g.resource
		si.cancelFlow(g)
		return si.openToken(res, false), true
	case key.Matches(msg, k.Paste):
		if g.grant == nil || g.grant.Device() != nil {
			return reportInfo("this sign-in does not wait for a browser's redirect"), true
		}
		si.paste = newPasteField(g.resource)
		return nil, true
	}
	return nil, false
}

// switchToDevice ends the browser flow g and starts a device grant for
// the same requirement, when the authorization server offers one.
func (si *signIn) switchToDevice(g *grantFlow) tea.Cmd {
	if _, ok := si.cfg.Auth.(deviceStarter); !ok || g.grant == nil || !g.grant.DeviceOffered() || g.grant.Device() != nil {
		return reportInfo("this sign-in offers no device code")
	}
	req := g.requirement
	g.grant.Cancel()
	if g.cancel != nil {
		g.cancel()
	}
	delete(si.grants, g.resource)
	return si.startFlow(req, g.confirmed, true)
}

// keyPaste edits the paste field; enter hands the address to the flow.
func (si *signIn) keyPaste(msg tea.KeyPressMsg, g *grantFlow) tea.Cmd {
	k := si.keys.Paste
	p := &si.paste
	switch {
	case key.Matches(msg, k.Cancel):
		si.paste = pasteField{}
		return nil
	case key.Matches(msg, k.Submit):
		text := strings.TrimSpace(p.in.Value())
		if text == "" || p.busy || g.grant == nil {
			return nil
		}
		p.busy, p.err = true, ""
		grant, ctx, res := g.grant, si.ctx, g.resource
		si.log.Debug("completing a sign-in with a pasted address", "resource", res)
		return func() tea.Msg {
			return pasteDoneMsg{resource: res, err: grant.Complete(ctx, text)}
		}
	}
	if msg.Text != "" {
		msg.Text = oneLine(msg.Text)
	}
	p.in, _ = p.in.Update(msg)
	return nil
}

// oneLine is typed or pasted text fit for the field: no control
// characters (a line break ends the paste's one line).
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// onPaste takes a bracketed paste while the field is open.
func (si *signIn) onPaste(msg tea.PasteMsg) bool {
	if si.tokenOpen() {
		si.pasteToken(msg)
		return true
	}
	if !si.paste.open {
		return false
	}
	si.paste.in, _ = si.paste.in.Update(tea.PasteMsg{Content: oneLine(msg.Content)})
	return true
}

func (si *signIn) onPasteDone(msg pasteDoneMsg) tea.Cmd {
	if si.paste.resource != msg.resource {
		return nil
	}
	si.paste.busy = false
	if msg.err != nil {
		// Cleared, so the next paste is the whole field, not appended
		// to the refused one; the error under it says what was wrong.
		si.paste.err = msg.err.Error()
		si.paste.in.Reset()
		return reportError(fmt.Errorf("the pasted address did not complete the sign-in: %w", msg.err))
	}
	si.paste = pasteField{}
	return reportInfo("sign-in address accepted; finishing the sign-in to " + views.SanitizeLine(msg.resource))
}

// overlayExtras adds what the overlay shows beyond the flow's phase: the
// authorization server, a device code, the paste field and the last note.
func (si *signIn) overlayExtras(gv *views.GrantView, g *grantFlow) {
	if g.grant != nil {
		gv.Server = g.grant.ServerHost()
		gv.Issuer, gv.ServerIsIssuer, gv.OriginWarning = g.grant.Issuer(), g.grant.ServerIsIssuer(), g.grant.OtherOrigin()
		if d := g.grant.Device(); d != nil {
			gv.Device = &views.DeviceView{UserCode: d.UserCode, VerificationURI: d.VerificationURI}
		}
		_, canDevice := si.cfg.Auth.(deviceStarter)
		gv.DeviceOffered = canDevice && g.grant.DeviceOffered() && gv.Device == nil
	}
	if si.paste.open && si.paste.resource == g.resource {
		// The field shows the address with its values hidden: a redirect
		// carries the authorization code and state, and a screen is seen
		// (and recorded, and shared) by more than the user.
		v := si.paste.in.Value()
		gv.Pasting, gv.Pasted, gv.PasteErr = true, authpkce.RedactAddress(v), si.paste.err
		gv.PasteTail = pasteTail(v, si.paste.in.Position())
	}
	gv.Note = si.note
}

// pasteTail is how many cells of the redacted address lie after the
// cursor at rune pos of v: the redaction of what precedes the cursor,
// measured against the whole one's.
func pasteTail(v string, pos int) int {
	r := []rune(v)
	if pos >= len(r) {
		return 0
	}
	whole := ansi.StringWidth(views.SanitizeLine(authpkce.RedactAddress(v)))
	before := ansi.StringWidth(views.SanitizeLine(authpkce.RedactAddress(string(r[:pos]))))
	if strings.TrimSpace(string(r[:pos])) == "" {
		before = 0
	}
	return max(1, whole-min(before, whole))
}
