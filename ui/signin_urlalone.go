package ui

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/views"
)

// The sheet hard-wraps a sign-in URL at the screen's width: a mouse
// selection over its rows copies line breaks (and, in some terminals, the
// padding) into it. The URL alone key leaves the alternate screen and
// prints the URL on the normal one as one line, which the terminal wraps
// softly, so a selection (or a triple-click) copies it whole; enter
// comes back. What stays on the normal screen is the URL, which is
// already in the --log file and on the sheet.

// urlAlone is the tea.ExecCommand that prints url and waits for enter.
type urlAlone struct {
	url string
	in  io.Reader
	out io.Writer
}

func (u *urlAlone) SetStdin(r io.Reader)  { u.in = r }
func (u *urlAlone) SetStdout(w io.Writer) { u.out = w }
func (u *urlAlone) SetStderr(io.Writer)   {}

// urlAloneIntro heads the normal screen while the URL is shown.
const urlAloneIntro = "ahptui: the sign-in URL, on one line (select it whole):"

func (u *urlAlone) Run() error {
	if u.out == nil || u.in == nil {
		return errors.New("no terminal to show the URL on")
	}
	if _, err := fmt.Fprintf(u.out, "\r\n%s\r\n\r\n%s\r\n\r\nPress enter to go back to ahptui.", urlAloneIntro, u.url); err != nil {
		return err
	}
	r := bufio.NewReader(u.in)
	for {
		b, err := r.ReadByte()
		if err != nil || b == '\n' || b == '\r' {
			_, _ = io.WriteString(u.out, "\r\n")
			return nil
		}
	}
}

// urlShownMsg is the app back from the URL alone.
type urlShownMsg struct{ err error }

// showURLAlone prints the URL of flow g alone on the normal screen, when
// it is one a terminal may be handed whole (views.SignInLink).
func (si *signIn) showURLAlone(g *grantFlow) tea.Cmd {
	u := ""
	if g != nil {
		u = g.url
		if g.grant != nil && g.grant.Device() != nil {
			u = g.grant.Device().VerificationURI
		}
	}
	if u == "" {
		return reportError(errNoURL)
	}
	if views.SignInLink(u) == "" {
		return reportError(errors.New("this sign-in URL is not a plain http(s) address; select it on the sheet instead"))
	}
	return tea.Exec(&urlAlone{url: u}, func(err error) tea.Msg { return urlShownMsg{err: err} })
}

func (si *signIn) onURLShown(msg urlShownMsg) tea.Cmd {
	if msg.err != nil {
		return reportError(fmt.Errorf("could not show the URL alone: %w", msg.err))
	}
	return nil
}
