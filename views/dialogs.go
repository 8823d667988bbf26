package views

import (
	"fmt"

	"github.com/ahptui/ahptui/keymap"
)

// dialogMaxWidth is how wide a dialog may grow on a wide terminal.
const dialogMaxWidth = 60

// RenderDisposeDialog asks whether to dispose the session titled title (a
// host string: sanitized here). maxW is the room the screen leaves.
func RenderDisposeDialog(th Theme, k keymap.KeyMap, title string, maxW int) string {
	body := []string{
		"Dispose session " + th.Title.Render("“"+SanitizeLine(title)+"”") + "?",
		th.Muted.Render("Its chats end and the host forgets it."),
		"",
		KeyHints(th, true, k.Confirm.Yes, "dispose", k.Confirm.No, "keep"),
	}
	return RenderDialog(th, "Dispose", body, min(maxW, dialogMaxWidth), len(body)+2)
}

// RenderQuitDialog asks whether to quit when quitting loses the
// composer's draft (draft) or leaves waiting approvals and questions
// unanswered (waiting counts them). maxW is the room the screen leaves.
func RenderQuitDialog(th Theme, k keymap.KeyMap, draft bool, waiting, maxW int) string {
	var body []string
	if draft {
		body = append(body, "Quit and lose the draft?", th.Muted.Render("The composer holds a message not sent yet."))
	}
	if waiting > 0 {
		what := "1 approval or question waits for you"
		if waiting > 1 {
			what = fmt.Sprintf("%d approvals or questions wait for you", waiting)
		}
		if !draft {
			body = append(body, "Quit while "+what+"?")
		} else {
			body = append(body, th.Muted.Render("And "+what+"."))
		}
		body = append(body, th.Muted.Render("The agent stays stopped until someone answers."))
	}
	stay := "keep writing"
	if !draft {
		stay = "stay"
	}
	body = append(body, "", KeyHints(th, true, k.Confirm.Yes, "quit", k.Confirm.No, stay))
	return RenderDialog(th, "Quit?", body, min(maxW, dialogMaxWidth), len(body)+2)
}

// NewSessionChoice is one agent × model the new-session picker offers,
// in the host's words (sanitized when drawn).
type NewSessionChoice struct {
	Agent, Model string
}

// RenderNewSessionDialog is the agent/model picker with choice selected,
// at most maxW×maxH cells.
func RenderNewSessionDialog(th Theme, k keymap.KeyMap, choices []NewSessionChoice, selected, maxW, maxH int) string {
	body := []string{th.Muted.Render("Pick the agent and model:")}
	for i, c := range choices {
		label := SanitizeLine(c.Agent)
		if c.Model != "" {
			label += " · " + SanitizeLine(c.Model)
		}
		if i == selected {
			body = append(body, th.Selected.Render("▸ "+label))
		} else {
			body = append(body, "  "+label)
		}
	}
	nk := k.NewSession
	// Enter goes on to the session's settings (a host without any
	// creates it at once): "create" belongs to the settings step.
	body = append(body, "", KeyHints(th, true, nk.Create, "continue", nk.Cancel, nk.Cancel.Help().Desc))
	return RenderDialog(th, "New session", body, min(maxW, dialogMaxWidth), min(maxH, len(body)+2))
}

// DialogWidth is the room a dialog gets on a screen width cells wide.
func DialogWidth(width int) int { return max(20, min(width-4, 72)) }

// WidenView is the confirmation of a value that lets more run without
// asking, or of a host-wide setting: the question, what it does, whom it
// reaches, and which answer is highlighted. Every string may hold host
// text; the renderer sanitizes it.
type WidenView struct {
	Title    string
	Question string
	Effect   []string
	Reach    string
	OnYes    bool // the highlight is on "yes" (it starts on "no")
}

// RenderWidenDialog draws the confirmation: its effect and reach in
// words, then "No" and "Yes" with the highlighted one marked; only enter
// on a highlighted "Yes" confirms.
func RenderWidenDialog(th Theme, k keymap.KeyMap, v WidenView, maxW int) string {
	w := min(maxW, dialogMaxWidth+12)
	inner := max(10, w-2)
	body := wrapLines(th.Text.Render(SanitizeLine(v.Question)), inner)
	for _, e := range v.Effect {
		body = append(body, wrapLines(th.Muted.Render(SanitizeLine(e)), inner)...)
	}
	body = append(body, wrapLines(th.Warning.Render("Applies to: "+SanitizeLine(v.Reach)+"."), inner)...)
	no, yes := "  No  ", "  Yes  "
	if v.OnYes {
		yes = th.Selected.Render("▸ Yes ")
	} else {
		no = th.Selected.Render("▸ No ")
	}
	wk := k.Widen
	body = append(body, "", no+"   "+yes, "")
	body = append(body, wrapLines(KeyHints(th, true, wk.Move, wk.Move.Help().Desc, wk.Choose, wk.Choose.Help().Desc, wk.Cancel, wk.Cancel.Help().Desc), inner)...)
	return RenderDialog(th, SanitizeLine(v.Title), body, w, len(body)+2)
}
