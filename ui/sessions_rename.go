package ui

import (
	"encoding/json"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// titleProp is the rename form's one question: the session's title, as
// a text setting the input form edits.
var titleProp = configProp{id: "title", title: "Session title",
	description: "What the host and every client call this session.", typ: "string", mutable: true}

// rename is R on the session list: the input form on the open session's
// title; enter sends session/titleChanged, the spec's rename by a
// client. A session must be open (its state subscribed) to act on it, so
// R on another row says to open it first.
func (sl *sessionList) rename() tea.Cmd {
	uri := sl.selected()
	if uri == "" {
		return reportError(errNoChat)
	}
	if uri != sl.openSession || !sl.hasSess {
		return reportInfo("open the session first (" + sl.keys.Sessions.Open.Help().Key + "), then " +
			sl.keys.Sessions.Rename.Help().Key + " renames it")
	}
	cur, _ := json.Marshal(sl.sess.Title)
	return sl.openSettingForm(titleProp, cur, modalNone, func(v json.RawMessage) tea.Cmd {
		var title string
		if json.Unmarshal(v, &title) != nil {
			return reportError(errors.New("the title must be text"))
		}
		title, err := views.SessionTitle(title)
		if err != nil {
			return reportError(fmt.Errorf("%w: the title was left as it was", err))
		}
		return sl.dispatchThen(uri, protocol.SessionTitleChangedAction{Title: title}, "renamed to "+title)
	}, nil)
}
