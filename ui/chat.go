package ui

import (
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/views"
)

// chatPanel is the open chat: its transcript (selection, expansion,
// scroll), the composer, and the cards that wait on the user.
type chatPanel struct {
	*app
	signin   *signIn      // grant flows and agent prompts drawn in the chat
	sessions *sessionList // other sessions' blockers, for !

	sel      chatSel
	expanded map[string]bool
	scroll   int
	pin      bool // settle scrolls the selected card into view
	// cardScroll is set while the scroll is settle's, to show a card,
	// not the user's: once that card is answered the view follows the
	// chat's end again.
	cardScroll bool
	composer   textarea.Model
	// sendOnOpen is the session whose composer text was sent before its
	// chat was in: it goes as soon as the chat is (sendWhenOpen).
	sendOnOpen string
	// editing is the pending message the composer holds (queueSheet.edit).
	editing *pendingEdit
	// drafts holds what was written in the composers of the chats not
	// on screen, by host, session and chat (the chat "" while the
	// session's chat is not in yet): each chat has its own, back when
	// the chat is.
	drafts    map[draftKey]string
	ourTurns  map[string]time.Time
	blockerAt int

	// tr caches the open chat's rendered turns.
	tr           *views.Transcript
	itemsMemo    itemsMemo
	composerMemo panelMemo // the blurred composer's last drawing
	// seenBlockers holds the keys of the open chat's items that have waited
	// on the user (seenChat is the chat they belong to), so only a blocker
	// that is new moves the selection and focus to itself.
	seenBlockers map[itemKey]bool
	// guard drops keys still being typed when a new card takes the
	// keys from the composer (noticeBlockers).
	guard    typingGuard
	seenChat string
	// waiting is the keys of the open chat's items that wait on the user,
	// as of the last snapshot: a streamed chunk that leaves it unchanged
	// (most of them) moves no selection and focus.
	waiting []itemKey
}

func newChatPanel(a *app, signin *signIn, sessions *sessionList) *chatPanel {
	cp := &chatPanel{app: a, signin: signin, sessions: sessions,
		expanded: map[string]bool{}, ourTurns: map[string]time.Time{}, drafts: map[draftKey]string{}}
	cp.composer = textarea.New()
	cp.composer.Placeholder = "Write a message…"
	cp.composer.ShowLineNumbers = false
	cp.composer.Prompt = "│ "
	cp.composer.CharLimit = 0
	cp.composer.KeyMap.InsertNewline = key.NewBinding(key.WithKeys(a.keys.Composer.Newline.Keys()...))
	return cp
}

// chatSel is what the transcript's selection is on: a card (a tool call or
// an input request, by its turn and id: a host may reuse a tool call id in
// a later turn) or the agent's sign-in prompt under the transcript, which
// has no id of its own. The zero value selects nothing.
type chatSel struct {
	item   string
	turn   string // "" matches the item in any turn (the first)
	prompt bool
}

// selOf selects item it.
func selOf(it chatItem) chatSel { return chatSel{item: it.ID, turn: it.TurnID} }

// itemKey tells one item of a chat from every other: an item's id is
// unique within its turn only.
type itemKey struct{ turn, item string }

// key is what tells it from every other item of the chat.
func (it chatItem) key() itemKey { return itemKey{turn: it.TurnID, item: it.ID} }

// names reports whether the selection is the item with chatItem.key k; a
// selection by id alone (no turn) names that id in any turn.
func (s chatSel) names(k itemKey) bool {
	if s.item == "" {
		return false
	}
	if s.turn == "" {
		return k.item == s.item
	}
	return k == s.key()
}

// key is the selected item's chatItem.key (zero for none or the prompt).
func (s chatSel) key() itemKey {
	if s.item == "" {
		return itemKey{}
	}
	return itemKey{turn: s.turn, item: s.item}
}

// noticeBlockers brings a blocker that just appeared in the open chat
// within reach of the keys its card shows. From an empty composer or a
// transcript with nothing selected it selects the newest one and focuses
// the transcript; a composer holding a draft keeps focus (the user is
// typing), and the card says how to get there instead. Taken from an
// empty composer the user may still be typing, so the card's keys work
// only after the guard's second.
func (cp *chatPanel) noticeBlockers() {
	if cp.seenChat != cp.openChat || cp.seenBlockers == nil {
		cp.seenChat, cp.seenBlockers = cp.openChat, map[itemKey]bool{}
	}
	auth := cp.signin.waitingServers()
	var newest chatSel
	for _, it := range cp.items() {
		if it.needsUser(auth) && !cp.seenBlockers[it.key()] {
			cp.seenBlockers[it.key()] = true
			newest = selOf(it)
		}
	}
	if newest.item == "" || cp.modal != modalNone {
		return
	}
	switch cp.focus {
	case focusComposer:
		if strings.TrimSpace(cp.composer.Value()) != "" {
			return
		}
		cp.composer.Blur()
		cp.focus = focusChat
		cp.guard.arm(cp.clock())
	case focusChat:
		if cp.sel.prompt {
			return
		}
		if _, ok := cp.selectedItem(); ok {
			return
		}
	default:
		return
	}
	cp.sel, cp.scroll, cp.pin = newest, 0, true
}

// newestBlocker is the open chat's most recent item that waits on the user.
func (cp *chatPanel) newestBlocker() (chatItem, bool) {
	auth := cp.signin.waitingServers()
	items := cp.items()
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].needsUser(auth) {
			return items[i], true
		}
	}
	return chatItem{}, false
}

// followBlocker moves the transcript selection to the first card that
// waits on the user when the selected one no longer does, so approve and
// the grant keys act on what is waiting without hunting for it. It does not
// scroll: a user reading older turns stays where they are.
func (cp *chatPanel) followBlocker() {
	if cp.focus != focusChat || cp.sel.prompt {
		return
	}
	auth := cp.signin.waitingServers()
	if it, ok := cp.selectedItem(); ok && it.needsUser(auth) {
		return
	}
	for _, it := range cp.items() {
		if it.needsUser(auth) {
			cp.sel = selOf(it)
			return
		}
	}
}

// scrollBy moves the transcript n lines up (down when n < 0), within the
// transcript: an offset past the top would make the next keys down undo
// nothing the user can see.
func (cp *chatPanel) scrollBy(n int) {
	cp.cardScroll = false
	cp.scroll = max(0, cp.scroll+n)
	if cp.openSession != "" && cp.hasChat {
		_, _, w, h := cp.chatParts(cp.layout.Chat)
		cp.scroll = cp.transcript().ClampScroll(w, h, cp.scroll, cp.transcriptOptions())
	}
}

// maxScroll is the offset that shows the transcript's first line at the
// top of the viewport. It renders every turn not yet cached at this width.
func (cp *chatPanel) maxScroll() int {
	if cp.openSession == "" || !cp.hasChat {
		return 0
	}
	_, _, w, h := cp.chatParts(cp.layout.Chat)
	return max(0, cp.transcript().TotalLines(w, cp.transcriptOptions())-h)
}

func (cp *chatPanel) turnRunning() bool { return cp.hasChat && cp.chat.ActiveTurn != nil }

func (cp *chatPanel) selectedItem() (chatItem, bool) {
	if cp.sel.item == "" || !cp.hasChat {
		return chatItem{}, false
	}
	for _, it := range cp.items() {
		if it.ID == cp.sel.item && (cp.sel.turn == "" || it.TurnID == cp.sel.turn) {
			return it, true
		}
	}
	return chatItem{}, false
}

// selectDefaultItem selects the first item that needs the user, so focusing
// the chat puts approve/deny on the card that is waiting.
func (cp *chatPanel) selectDefaultItem() {
	if cp.sel != (chatSel{}) {
		if _, ok := cp.selectedItem(); ok {
			return
		}
	}
	if len(cp.signin.prompts) > 0 {
		cp.sel = chatSel{prompt: true}
		return
	}
	auth := cp.signin.waitingServers()
	for _, it := range cp.items() {
		if it.needsUser(auth) {
			cp.sel = selOf(it)
			return
		}
	}
}

func (cp *chatPanel) moveItem(d int) {
	items := cp.items()
	sels := make([]chatSel, 0, len(items)+1)
	for _, it := range items {
		sels = append(sels, selOf(it))
	}
	if len(cp.signin.prompts) > 0 {
		sels = append(sels, chatSel{prompt: true})
	}
	if len(sels) == 0 {
		return
	}
	i := -1
	for j, s := range sels {
		if s == cp.sel {
			i = j
		}
	}
	switch {
	case i < 0 && d > 0:
		i = 0
	case i < 0:
		i = len(sels) - 1
	default:
		i = max(0, min(len(sels)-1, i+d))
	}
	cp.sel = sels[i]
	cp.scroll = 0
	cp.pin = true
}

// offerPrompt selects the agent's sign-in prompt when the transcript has
// the keys and nothing is selected, so g answers it at once.
func (cp *chatPanel) offerPrompt() {
	if cp.focus == focusChat && cp.sel == (chatSel{}) {
		cp.sel = chatSel{prompt: true}
	}
}

// blockersChanged runs when the open chat or session has a new snapshot:
// when the set of items that wait on the user changed, the selection
// follows them (followBlocker) and a new one comes within reach
// (noticeBlockers).
func (cp *chatPanel) blockersChanged() {
	auth := cp.signin.waitingServers()
	var waiting []itemKey
	for _, it := range cp.items() {
		if it.needsUser(auth) {
			waiting = append(waiting, it.key())
		}
	}
	if slices.Equal(waiting, cp.waiting) && cp.seenChat == cp.openChat {
		return
	}
	// The card the view moved to was answered: follow the chat again.
	if cp.cardScroll && slices.ContainsFunc(cp.waiting, cp.sel.names) && !slices.ContainsFunc(waiting, cp.sel.names) {
		cp.scroll, cp.cardScroll = 0, false
	}
	cp.waiting = waiting
	cp.followBlocker()
	cp.noticeBlockers()
}

// draftKey names the composer draft of one chat of one session of a host.
type draftKey struct{ host, session, chat string }

// leaveDraft keeps what the composer holds as the draft of the open chat
// (of the open session, before its chat is in) and empties the composer,
// as another chat, session or host is opening: a draft is never shown,
// nor sent, anywhere else. A pending message being edited is not a
// draft: reset puts it away.
func (cp *chatPanel) leaveDraft() {
	if cp.editing != nil {
		return
	}
	if cp.openSession != "" {
		k := draftKey{cp.cfg.Host, cp.openSession, cp.openChat}
		if v := cp.composer.Value(); v != "" {
			cp.drafts[k] = v
		} else {
			delete(cp.drafts, k)
		}
	}
	cp.composer.Reset()
}

// restoreDraft puts the open chat's draft back in the composer. Text
// written while the chat was coming stays; the session's draft from
// before its chat was in goes to that chat.
func (cp *chatPanel) restoreDraft() {
	early := draftKey{cp.cfg.Host, cp.openSession, ""}
	k := draftKey{cp.cfg.Host, cp.openSession, cp.openChat}
	v, ok := cp.drafts[k]
	if !ok {
		v, ok = cp.drafts[early]
	}
	delete(cp.drafts, early)
	delete(cp.drafts, k)
	if ok && cp.composer.Value() == "" {
		cp.composer.SetValue(v)
	}
}

// dropDrafts forgets the drafts of a session that is gone, and the
// composer's when it is the open one.
func (cp *chatPanel) dropDrafts(session string) {
	for k := range cp.drafts {
		if k.host == cp.cfg.Host && k.session == session {
			delete(cp.drafts, k)
		}
	}
	if session == cp.openSession && cp.editing == nil {
		cp.composer.Reset()
	}
}

// reset forgets the selection, scroll and drawn turns of the chat that
// was open: another chat (or none) is opening.
func (cp *chatPanel) reset() {
	cp.sel, cp.scroll, cp.tr = chatSel{}, 0, nil
	if cp.editing != nil {
		// The pending message belongs to the chat left behind.
		cp.editing = nil
		cp.composer.Reset()
	}
}

// resize fits the composer to a chat panel width cells wide.
func (cp *chatPanel) resize(width int) {
	cp.composer.SetWidth(max(width-4, 4))
	cp.composer.SetHeight(cp.composerLines())
	cp.tr = nil
}

// applyTheme restyles the composer for the background (and NO_COLOR) and
// drops the turns drawn in the old theme.
func (cp *chatPanel) applyTheme(dark bool) {
	st := textarea.DefaultStyles(dark)
	st.Cursor.Blink = false
	if cp.cfg.NoColor {
		plain := textarea.StyleState{}
		st.Focused, st.Blurred = plain, plain
		st.Cursor.Color = nil
	}
	cp.composer.SetStyles(st)
	cp.tr = nil
}

// updateComposer hands a message (a key, a paste, a cursor blink) to the
// composer.
func (cp *chatPanel) updateComposer(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	cp.composer, cmd = cp.composer.Update(msg)
	return cmd
}

// leaveComposer hands the keyboard back to the transcript when the
// composer has it.
// writeWhenOpen focuses the composer once the session i was pressed on
// (writeIn) has its chat open, unless the user moved on meanwhile.
func (cp *chatPanel) writeWhenOpen() tea.Cmd {
	if cp.writeIn == "" {
		return nil
	}
	if cp.writeIn != cp.openSession || cp.focus != focusChat {
		cp.writeIn = "" // another session opened, or the focus moved on
		return nil
	}
	if !cp.hasChat || cp.modal != modalNone {
		return nil
	}
	cp.writeIn, cp.focus = "", focusComposer
	return cp.composer.Focus()
}

// sendWhenOpen sends what was written before the open session's chat
// was in, once it is; another session opened meanwhile keeps the text in
// the composer, unsent.
func (cp *chatPanel) sendWhenOpen() tea.Cmd {
	switch {
	case cp.sendOnOpen == "":
		return nil
	case cp.sendOnOpen != cp.openSession:
		cp.sendOnOpen = ""
		return nil
	case !cp.hasChat:
		return nil
	}
	cp.sendOnOpen = ""
	return cp.submitComposer()
}

func (cp *chatPanel) leaveComposer() {
	if cp.focus == focusComposer {
		cp.composer.Blur()
		cp.focus = focusChat
	}
}
