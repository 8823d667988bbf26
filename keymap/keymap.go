package keymap

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// KeyMap is every binding of ahptui, grouped by the view that owns it. Key
// names are bubbletea v2 keystrings (tea.KeyPressMsg.String()): "q",
// "ctrl+c", "shift+tab", "pgdown", "space", "alt+enter". Shifted letters are
// their upper-case text ("D").
//
// Which groups are live at once is decided by Context, not by the views:
// ui asks Active(ctx) (or Help(ctx) for the help line) for the context that
// has focus, and Validate checks that no two live bindings share a key.
type KeyMap struct {
	Global     GlobalKeys
	Sessions   SessionKeys
	Chat       ChatKeys
	Composer   ComposerKeys
	MCP        MCPKeys
	Grant      GrantKeys
	Input      InputKeys
	Confirm    ConfirmKeys
	Widen      WidenKeys
	SignIns    SignInKeys
	Paste      PasteKeys
	NewSession NewSessionKeys
	Settings   SettingsKeys
	Queue      QueueKeys
	Chats      ChatsKeys
	Resources  ResourcesKeys
	Inbox      InboxKeys
	Changes    ChangesKeys
	Diff       DiffKeys
	Terminals  TerminalsKeys
	Terminal   TerminalKeys
	HelpScreen HelpScreenKeys

	// turnRunning is whether the open chat has a running turn
	// (SetTurnRunning): the help offers cancel turn only then.
	turnRunning bool
	// turnResumable and blockingSelected say whether resume turn and
	// background server would do something now (SetTurnResumable,
	// SetBlockingSelected): the footer offers them only then.
	turnResumable, blockingSelected bool
	// canNew, canFork and canSide say which chats the open session's
	// agent lets a client create (SetChatCreation): the switcher's
	// footer offers only those keys.
	canNew, canFork, canSide bool
}

// GlobalKeys work wherever focus is. Quit, Help and ToggleMCP are printable
// keys, so they are live only outside text entry; Interrupt (ctrl+c) is the
// quit that works everywhere.
type GlobalKeys struct {
	Quit      key.Binding
	Interrupt key.Binding
	Help      key.Binding
	FocusNext key.Binding
	FocusPrev key.Binding
	Reconnect key.Binding
	// Redraw clears the terminal and draws the screen again (ctrl+l, as
	// shells and editors do): a screen another program scribbled on, or
	// one a terminal left shifted after a resize.
	Redraw    key.Binding
	ToggleMCP key.Binding
	SignIns   key.Binding // open the list of saved sign-ins
	// Messages opens the status line's history: a message cut to the
	// bar's width is read whole there.
	Messages key.Binding
	// Settings opens the settings sheet: the open session's settings
	// and the host's.
	Settings key.Binding
	// Inbox opens the list of everything that waits on the user,
	// oldest first.
	Inbox key.Binding
	// Changes opens the open session's changes view: its changesets,
	// their files and diffs (issue 23).
	Changes key.Binding
	// Terminals opens the terminals list: the host's terminals and the
	// one the selected tool call runs in (issue 23).
	Terminals key.Binding
}

// TerminalsKeys drive the terminals list.
type TerminalsKeys struct {
	Rows
	Open  key.Binding // subscribe and show the terminal
	Close key.Binding
}

// TerminalKeys drive an open terminal pane. Input is the key that says
// the user means to type into the terminal (only while this client holds
// its claim); every key then goes to the terminal until Leave.
type TerminalKeys struct {
	ScrollUp   key.Binding
	ScrollDown key.Binding
	PageUp     key.Binding
	PageDown   key.Binding
	Top        key.Binding
	Bottom     key.Binding // back to following the output
	Input      key.Binding
	Leave      key.Binding // stop typing into the terminal
	Back       key.Binding // to the list (unsubscribes)
}

// ChangesKeys drive the changes view: the session's changesets, then the
// files of the one opened. TurnPrev/TurnNext pick the turn a per-turn
// changeset is expanded with (the modified turn of a comparison),
// OrigPrev/OrigNext a comparison's original turn.
type ChangesKeys struct {
	Rows
	Open       key.Binding // a changeset's files, or a file's diff
	Back       key.Binding // from the files to the changesets; from there, close
	TurnPrev   key.Binding
	TurnNext   key.Binding
	OrigPrev   key.Binding
	OrigNext   key.Binding
	Reviewed   key.Binding // toggle the selected file's reviewed mark
	Unreviewed key.Binding // show unreviewed files only, or all again
	Operation  key.Binding // run the host's operation of that number
}

// DiffKeys drive the diff view of one file of an open changeset.
type DiffKeys struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	NextHunk key.Binding
	PrevHunk key.Binding
	NextFile key.Binding
	PrevFile key.Binding
	Reviewed key.Binding
	Back     key.Binding
	// Left and Right scroll the diff sideways: a line longer than its
	// column is cut with "…", and these reach the rest (issue 36).
	Left  key.Binding
	Right key.Binding
}

// SessionKeys drive the session list.
type SessionKeys struct {
	Rows
	Open    key.Binding
	Write   key.Binding // opens the composer of the session under the cursor
	New     key.Binding
	Dispose key.Binding // asks for confirmation (Confirm keys) first
	// Rename opens a one-line form on the open session's title and sends
	// session/titleChanged (issue 35).
	Rename key.Binding
	// The host keys act on the host of the row under the cursor (its
	// header or one of its sessions). They are live only with several
	// hosts (SetMultiHost): one host keeps ctrl+r.
	HostConnect    key.Binding
	HostDisconnect key.Binding
	HostRetry      key.Binding // dial again now, skipping the back-off
}

// ChatKeys drive the transcript of the open chat.
type ChatKeys struct {
	ScrollUp      key.Binding
	ScrollDown    key.Binding
	PageUp        key.Binding
	PageDown      key.Binding
	Top           key.Binding
	Bottom        key.Binding
	FocusComposer key.Binding
	NextToolCall  key.Binding
	PrevToolCall  key.Binding
	// Approve confirms a pending tool call for this one call (the host's
	// "allow once" option, never a broader one), or its result.
	Approve key.Binding
	Deny    key.Binding
	// PickOption confirms a pending tool call with the option the host
	// offers at that position on the card (1 is the first); one that
	// approves more than this call asks first (ui/widen.go).
	PickOption   key.Binding
	ToggleExpand key.Binding // reasoning / tool-call input and output
	CancelTurn   key.Binding
	NextBlocker  key.Binding // jump to the next item waiting for the user
	SwitchChat   key.Binding
	// ResumeTurn asks the host to resume the latest turn where it stopped
	// at a resumable error (chat/turnResume, AHP 1.0).
	ResumeTurn key.Binding
	// Queue opens the pending messages: the steering message and the
	// queued ones, with their text, to edit, remove or reorder.
	Queue key.Binding
	// Subagent opens the chat of the subagent the selected tool call runs.
	Subagent key.Binding
	// Terminal opens the terminal the selected tool call runs in.
	Terminal key.Binding
	// Resources opens the sheet of the chat's ContentRef attachments (read
	// only on request), its canvases and the session's annotations.
	Resources key.Binding
	// Copy puts the selected card (a tool call's input and result, a
	// question) or else the agent's last message on the clipboard, as
	// Markdown (issue 35).
	Copy key.Binding
}

// ComposerKeys drive the message composer. Send and Queue share enter: the
// ui enables exactly one of them with SetTurnRunning, so the help line says
// what enter will do right now.
type ComposerKeys struct {
	Send    key.Binding
	Queue   key.Binding
	Newline key.Binding
	Cancel  key.Binding // leave the composer, keeping the draft
	// Editor opens $VISUAL or $EDITOR on the draft; what it saves
	// replaces the draft (issue 35).
	Editor key.Binding
}

// MCPKeys drive the MCP server panel.
type MCPKeys struct {
	Up     key.Binding
	Down   key.Binding
	Start  key.Binding // start, or restart a running server
	Stop   key.Binding // x, not t, which pastes a token on a sign-in prompt (issue 36)
	Toggle key.Binding // enable/disable for this session
	SignIn key.Binding // run the OAuth flow for an authRequired server
	// Token pastes a token for an authRequired server's resource, with
	// no browser flow first: the route that works when the server's
	// authorization server registers no clients (GitHub).
	Token key.Binding
	// Background asks the host to stop holding new messages for a server
	// whose start blocks them (session/mcpServerBackgroundRequested, 1.0).
	Background key.Binding
}

// GrantKeys answer an inline "grant additional access" prompt. They are live
// together with ChatKeys while the selected chat item is such a prompt.
type GrantKeys struct {
	Accept  key.Binding // open the browser and run the OAuth flow
	Decline key.Binding // refuse; the tool call fails
	Cancel  key.Binding // abandon a flow waiting on the browser; else put the prompt away, still waiting
	CopyURL key.Binding // copy the authorization URL when no browser opens
	// ShowURL prints the sign-in URL alone on the terminal's normal
	// screen, one unbroken line the terminal wraps, for a mouse to copy.
	ShowURL key.Binding
	// Paste opens a one-line field for the address the browser landed on,
	// for a browser on another machine whose redirect cannot reach us.
	Paste key.Binding
	// Device switches to the device authorization grant (RFC 8628), where
	// the authorization server offers it: a code to enter on any device.
	Device key.Binding
	// Token opens a masked field to paste a token for the prompt's
	// resource (an agent's own sign-in has no OAuth flow ahptui can run
	// everywhere, e.g. GitHub's).
	Token key.Binding
	// GhToken takes the token from `gh auth token` for a GitHub resource,
	// offered only where gh is installed and run only on this key.
	GhToken key.Binding
}

// SignInKeys drive the list of saved sign-ins (a modal sheet).
type SignInKeys struct {
	Rows
	Forget key.Binding // drop the grant and revoke it at the server
	Close  key.Binding
}

// InboxKeys drive the inbox: what waits on the user, oldest first.
type InboxKeys struct {
	Rows
	Open  key.Binding // open the item in place (its session, chat and card)
	Close key.Binding
}

// PasteKeys drive the one-line field for a pasted redirect address. The
// field is text entry, so both are non-printable.
type PasteKeys struct {
	Submit key.Binding
	Cancel key.Binding
}

// InputKeys drive an input request (elicitation) form. Fields are text
// entry, so the form-wide keys (NextField … Decline, the ones Active lists)
// are non-printable. The choice keys act only on the focused question of
// their kind — ChoiceUp … PickNumber on a single or multiple choice, Yes,
// No and Toggle on a yes/no question — where nothing is typed (a choice
// with free text takes digits only while its text is empty).
type InputKeys struct {
	NextField key.Binding
	PrevField key.Binding
	// Enter moves to the next question (choosing the highlighted option
	// of a choice nothing is chosen in yet), and on the last one submits.
	Enter   key.Binding
	Submit  key.Binding
	Decline key.Binding // answers the request with a refusal, for good
	// Close puts the form away and leaves the request waiting (! opens it
	// again): esc is pressed to back out, not to refuse.
	Close key.Binding

	ChoiceUp   key.Binding
	ChoiceDown key.Binding
	Pick       key.Binding // choose the highlighted option (toggle it on a multiple choice)
	PickNumber key.Binding // choose option 1-9 by its number
	Yes        key.Binding
	No         key.Binding
	Toggle     key.Binding // flip a yes/no answer
}

// ChoiceHelp is what the form's hint offers on a single or multiple choice.
func (k InputKeys) ChoiceHelp() []key.Binding {
	return []key.Binding{k.ChoiceUp, k.ChoiceDown, k.Pick, k.PickNumber}
}

// SettingHelp is what the form's hint offers when it edits a setting
// (issue 26): esc cancels, and nothing waits to be answered later or
// declined.
func (k InputKeys) SettingHelp() []key.Binding {
	cancel := k.Close
	cancel.SetHelp(k.Close.Help().Key, "cancel")
	return []key.Binding{k.Enter, k.Submit, cancel}
}

// BooleanHelp is what the form's hint offers on a yes/no question.
func (k InputKeys) BooleanHelp() []key.Binding {
	return []key.Binding{k.Yes, k.No, k.Toggle}
}

// ConfirmKeys answer a yes/no dialog (e.g. dispose session). Enter is not
// "yes": a dialog that guards a destructive action must not be dismissed by
// a stray enter.
type ConfirmKeys struct {
	Yes key.Binding
	No  key.Binding
}

// WidenKeys answer the dialog that confirms a value letting more run
// without asking (an approval mode, an auto-approve or host-wide setting,
// a broader approval option). No printable key says yes: the highlight
// starts on "no", and only enter on a highlighted "yes" confirms.
type WidenKeys struct {
	Move   key.Binding // between "no" and "yes"
	Choose key.Binding
	Cancel key.Binding
}

// NewSessionKeys drive the new-session dialog: pick an agent and model,
// then create. It has its own group, not ConfirmKeys, because its answer
// is a choice, not yes/no: the footer and the dialog must say the same
// thing ("enter create", "n/esc cancel").
type NewSessionKeys struct {
	Rows
	// Prev and Next change the highlighted setting (the session's
	// settings, once the agent is picked).
	Prev key.Binding
	Next key.Binding
	// Edit opens the input form on the highlighted setting when it is
	// text, a number, or a value the host completes.
	Edit   key.Binding
	Create key.Binding
	Cancel key.Binding
}

// SettingsKeys drive the settings sheet (the session's settings that can
// change while it runs, and the host's).
type SettingsKeys struct {
	Rows
	Prev  key.Binding
	Next  key.Binding
	Edit  key.Binding // the input form on a text, number or completed setting
	Close key.Binding
}

// QueueKeys drive the pending-messages sheet (Q): the chat's steering
// message and its queued messages. Only queued messages have an order.
type QueueKeys struct {
	Rows
	Edit     key.Binding // the text back in the composer; enter saves the change
	Remove   key.Binding
	MoveUp   key.Binding
	MoveDown key.Binding
	Close    key.Binding
}

// ChatsKeys drive the chat switcher (c): every chat of the open session,
// and the new ones the agent lets a client create.
type ChatsKeys struct {
	Rows
	Open key.Binding
	New  key.Binding // a blank chat (multipleChats)
	Fork key.Binding // a fork of the open chat at the selected card's finished turn, else its latest
	Side key.Binding // a side chat on the selected card's turn, else the open chat's latest
	// Waiting opens the selected chat at what waits on the user in it
	// (else the next chat where something does).
	Waiting key.Binding
	Close   key.Binding
}

// ResourcesKeys drive the resources sheet (A): the open chat's
// attachments that are references (read only on Read), its canvases and
// the session's annotations.
type ResourcesKeys struct {
	Rows
	Read     key.Binding // fetch the selected attachment and show it
	PageUp   key.Binding // scroll what was read
	PageDown key.Binding
	Close    key.Binding
}

// HelpScreenKeys scroll the ? overlay, which is taller than a small
// terminal. Only Close (and quit) leave it: a stray key must not throw the
// reader out of the list they are reading.
type HelpScreenKeys struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Close    key.Binding
}

// Rows move the cursor through a list's rows: the same keys in every
// list, so each sheet embeds them rather than spell them out again.
type Rows struct {
	Up   key.Binding
	Down key.Binding
}

func rows() Rows {
	return Rows{Up: bind(keys("up", "k"), "↑/k", "up"), Down: bind(keys("down", "j"), "↓/j", "down")}
}

// closes is a sheet's close key: esc, or the key that opened it.
func closes(opener string) key.Binding { return bind(keys("esc", opener), "esc", "close") }

// opens is enter on a list's row, described as desc.
func opens(desc string) key.Binding { return bind(keys("enter"), "enter", desc) }

func bind(keys []string, helpKey, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, desc))
}

func keys(k ...string) []string { return k }

// DefaultKeyMap returns ahptui's bindings.
//
// Choices worth knowing: j/k mirror the arrows in lists; a/y approve and x
// denies so that "n" stays free for "decline" in a grant prompt next to
// them; g is the OAuth key everywhere (sign in, accept a grant), so chat has
// no g/G and uses home/end; ctrl+s submits forms (raw mode turns off XON/XOFF
// flow control, so it reaches us).
func DefaultKeyMap() KeyMap {
	km := KeyMap{
		Global: GlobalKeys{
			Quit:      bind(keys("q", "ctrl+c"), "q", "quit"),
			Interrupt: bind(keys("ctrl+c"), "ctrl+c", "quit"),
			Help:      bind(keys("?"), "?", "help"),
			FocusNext: bind(keys("tab"), "tab", "next panel"),
			FocusPrev: bind(keys("shift+tab"), "shift+tab", "prev panel"),
			Reconnect: bind(keys("ctrl+r"), "ctrl+r", "reconnect"),
			Redraw:    bind(keys("ctrl+l"), "ctrl+l", "redraw"),
			ToggleMCP: bind(keys("m"), "m", "toggle MCP panel"),
			SignIns:   bind(keys("S"), "S", "sign-ins"),
			Messages:  bind(keys("L"), "L", "message history"),
			Settings:  bind(keys("O"), "O", "settings"),
			Inbox:     bind(keys("I"), "I", "inbox"),
			Changes:   bind(keys("C"), "C", "changes"),
			Terminals: bind(keys("T"), "T", "terminals"),
		},
		Sessions: SessionKeys{
			Rows:    rows(),
			Open:    opens("open"),
			Write:   bind(keys("i", "/"), "i", "write"),
			New:     bind(keys("n"), "n", "new session"),
			Dispose: bind(keys("d"), "d", "dispose"),
			Rename:  bind(keys("R"), "R", "rename"),

			HostConnect:    bind(keys("c"), "c", "connect host"),
			HostDisconnect: bind(keys("x"), "x", "disconnect host"),
			HostRetry:      bind(keys("r"), "r", "retry host"),
		},
		Chat: ChatKeys{
			ScrollUp:      bind(keys("up", "k"), "↑/k", "scroll up"),
			ScrollDown:    bind(keys("down", "j"), "↓/j", "scroll down"),
			PageUp:        bind(keys("pgup"), "pgup", "page up"),
			PageDown:      bind(keys("pgdown"), "pgdn", "page down"),
			Top:           bind(keys("home"), "home", "top"),
			Bottom:        bind(keys("end"), "end", "bottom"),
			FocusComposer: bind(keys("i", "/"), "i", "write"),
			NextToolCall:  bind(keys("]"), "]", "next tool call"),
			PrevToolCall:  bind(keys("["), "[", "prev tool call"),
			Approve:       bind(keys("a", "y"), "a/y", "approve once"),
			Deny:          bind(keys("x"), "x", "deny"),
			PickOption:    bind(keys("1", "2", "3", "4", "5", "6", "7", "8", "9"), "1-9", "pick option"),
			ToggleExpand:  bind(keys("e"), "e", "expand"),
			CancelTurn:    bind(keys("ctrl+x"), "ctrl+x", "cancel turn"),
			NextBlocker:   bind(keys("!"), "!", "next needing you"),
			SwitchChat:    bind(keys("c"), "c", "chats"),
			ResumeTurn:    bind(keys("r"), "r", "resume turn"),
			Queue:         bind(keys("Q"), "Q", "queued messages"),
			Subagent:      bind(keys("o"), "o", "open subagent chat"),
			Terminal:      bind(keys("w"), "w", "watch its terminal"),
			Resources:     bind(keys("A"), "A", "attachments, canvases"),
			Copy:          bind(keys("Y"), "Y", "copy"),
		},
		Composer: ComposerKeys{
			Send:    bind(keys("enter"), "enter", "send"),
			Queue:   bind(keys("enter"), "enter", "queue"),
			Newline: bind(keys("alt+enter", "ctrl+j"), "ctrl+j", "newline"),
			Cancel:  bind(keys("esc"), "esc", "back"),
			// ctrl+g as Codex and Claude Code have it.
			Editor: bind(keys("ctrl+g"), "ctrl+g", "edit in $EDITOR"),
		},
		MCP: MCPKeys{
			// The badges may sit in one row (a short terminal), so the
			// sideways keys move along them too.
			Up:     bind(keys("up", "k", "left", "h"), "↑/←", "previous server"),
			Down:   bind(keys("down", "j", "right", "l"), "↓/→", "next server"),
			Start:  bind(keys("s"), "s", "start/restart"),
			Stop:   bind(keys("x"), "x", "stop"),
			Toggle: bind(keys("space"), "space", "enable/disable"),
			SignIn: bind(keys("g"), "g", "sign in"),
			Token:  bind(keys("t"), "t", "paste a token"),
			// b, not a shifted s/t: backgrounding is harmless and the
			// server keeps starting, so one plain key is enough.
			Background: bind(keys("b"), "b", "background start"),
		},
		Grant: GrantKeys{
			Accept:  bind(keys("enter", "g"), "enter/g", "grant access"),
			Decline: bind(keys("n"), "n", "decline"),
			Cancel:  bind(keys("esc"), "esc", "cancel sign-in"),
			CopyURL: bind(keys("u"), "u", "copy sign-in URL"),
			ShowURL: bind(keys("v"), "v", "URL alone"),
			Paste:   bind(keys("p"), "p", "paste URL"),
			Device:  bind(keys("D"), "D", "device code"),
			Token:   bind(keys("t"), "t", "paste a token"),
			GhToken: bind(keys("h"), "h", "token from gh"),
		},
		Input: InputKeys{
			NextField: bind(keys("tab"), "tab", "next field"),
			PrevField: bind(keys("shift+tab"), "shift+tab", "prev field"),
			Enter:     bind(keys("enter"), "enter", "next, submit on the last"),
			Submit:    bind(keys("ctrl+s"), "ctrl+s", "submit"),
			Decline:   bind(keys("ctrl+d"), "ctrl+d", "decline"),
			Close:     bind(keys("esc"), "esc", "close, answer later"),

			ChoiceUp:   bind(keys("up"), "↑", "previous option"),
			ChoiceDown: bind(keys("down"), "↓", "next option"),
			Pick:       bind(keys("space"), "space", "choose"),
			PickNumber: bind(keys("1", "2", "3", "4", "5", "6", "7", "8", "9"), "1-9", "choose by number"),
			Yes:        bind(keys("y", "t", "1"), "y", "yes"),
			No:         bind(keys("n", "f", "0"), "n", "no"),
			Toggle:     bind(keys("space", "left", "right", "up", "down"), "space", "toggle"),
		},
		Confirm: ConfirmKeys{
			Yes: bind(keys("y"), "y", "yes"),
			No:  bind(keys("n", "esc", "enter"), "n/esc", "no"),
		},
		Widen: WidenKeys{
			Move:   bind(keys("left", "right", "tab", "shift+tab", "h", "l"), "←/→", "no/yes"),
			Choose: bind(keys("enter"), "enter", "choose"),
			Cancel: bind(keys("esc", "n"), "esc", "no"),
		},
		SignIns: SignInKeys{
			Rows:   rows(),
			Forget: bind(keys("x"), "x", "forget and revoke"),
			Close:  bind(keys("esc"), "esc", "close"),
		},
		Paste: PasteKeys{
			Submit: bind(keys("enter"), "enter", "complete sign-in"),
			Cancel: bind(keys("esc"), "esc", "back"),
		},
		NewSession: NewSessionKeys{
			Rows:   rows(),
			Prev:   bind(keys("left", "h"), "←/h", "previous value"),
			Next:   bind(keys("right", "l"), "→/l", "next value"),
			Edit:   bind(keys("e"), "e", "edit value"),
			Create: bind(keys("enter"), "enter", "create"),
			Cancel: bind(keys("n", "esc"), "n/esc", "cancel"),
		},
		Settings: SettingsKeys{
			Rows:  rows(),
			Prev:  bind(keys("left", "h"), "←/h", "previous value"),
			Next:  bind(keys("right", "l"), "→/l", "next value"),
			Edit:  bind(keys("e"), "e", "edit value"),
			Close: closes("O"),
		},
		Queue: QueueKeys{
			Rows:     rows(),
			Edit:     bind(keys("e"), "e", "edit"),
			Remove:   bind(keys("d"), "d", "remove"),
			MoveUp:   bind(keys("K"), "K", "move up"),
			MoveDown: bind(keys("J"), "J", "move down"),
			Close:    closes("Q"),
		},
		Inbox: InboxKeys{
			Rows:  rows(),
			Open:  opens("open in place"),
			Close: closes("I"),
		},
		Changes: ChangesKeys{
			Rows:       rows(),
			Open:       opens("open"),
			Back:       bind(keys("esc"), "esc", "back"),
			TurnPrev:   bind(keys("left", "h"), "←/h", "earlier turn"),
			TurnNext:   bind(keys("right", "l"), "→/l", "later turn"),
			OrigPrev:   bind(keys("<"), "<", "earlier original turn"),
			OrigNext:   bind(keys(">"), ">", "later original turn"),
			Reviewed:   bind(keys("v"), "v", "toggle reviewed"),
			Unreviewed: bind(keys("u"), "u", "unreviewed only"),
			Operation:  bind(keys("1", "2", "3", "4", "5", "6", "7", "8", "9"), "1-9", "run operation"),
		},
		Diff: DiffKeys{
			Up:       bind(keys("up", "k"), "↑/k", "scroll up"),
			Down:     bind(keys("down", "j"), "↓/j", "scroll down"),
			PageUp:   bind(keys("pgup"), "pgup", "page up"),
			PageDown: bind(keys("pgdown", "space"), "pgdn", "page down"),
			NextHunk: bind(keys("]"), "]", "next hunk"),
			PrevHunk: bind(keys("["), "[", "previous hunk"),
			NextFile: bind(keys("n"), "n", "next file"),
			PrevFile: bind(keys("p"), "p", "previous file"),
			Reviewed: bind(keys("v"), "v", "toggle reviewed"),
			Back:     bind(keys("esc"), "esc", "back to files"),
			Left:     bind(keys("left"), "←", "scroll left"),
			Right:    bind(keys("right"), "→", "scroll right"),
		},
		Terminals: TerminalsKeys{
			Rows:  rows(),
			Open:  opens("open"),
			Close: closes("T"),
		},
		Terminal: TerminalKeys{
			ScrollUp:   bind(keys("up", "k"), "↑/k", "scroll up"),
			ScrollDown: bind(keys("down", "j"), "↓/j", "scroll down"),
			PageUp:     bind(keys("pgup"), "pgup", "page up"),
			PageDown:   bind(keys("pgdown", "space"), "pgdn", "page down"),
			Top:        bind(keys("g", "home"), "g", "top"),
			Bottom:     bind(keys("G", "end"), "G", "follow output"),
			Input:      bind(keys("i"), "i", "type into it"),
			Leave:      bind(keys("esc"), "esc", "stop typing"),
			Back:       bind(keys("esc"), "esc", "back to the list"),
		},
		Chats: ChatsKeys{
			Rows:    rows(),
			Open:    opens("open"),
			New:     bind(keys("n"), "n", "new chat"),
			Fork:    bind(keys("f"), "f", "fork"),
			Side:    bind(keys("s"), "s", "side chat"),
			Waiting: bind(keys("!"), "!", "open what waits"),
			Close:   closes("c"),
		},
		Resources: ResourcesKeys{
			Rows:     rows(),
			Read:     bind(keys("enter"), "enter", "read it"),
			PageUp:   bind(keys("pgup"), "pgup", "scroll up"),
			PageDown: bind(keys("pgdown", "space"), "pgdn", "scroll down"),
			Close:    closes("A"),
		},
		HelpScreen: HelpScreenKeys{
			Up:       bind(keys("up", "k"), "↑/k", "scroll up"),
			Down:     bind(keys("down", "j"), "↓/j", "scroll down"),
			PageUp:   bind(keys("pgup"), "pgup", "page up"),
			PageDown: bind(keys("pgdown"), "pgdn", "page down"),
			Close:    bind(keys("esc", "?"), "esc/?", "close help"),
		},
	}
	km.SetTurnRunning(false)
	km.SetMultiHost(false)
	return km
}

// SetTurnRunning tells the key map whether the open chat has a running
// turn: enter in the composer sends or queues, and the help offers ctrl+x
// (cancel turn) only while there is a turn to cancel. The binding itself
// stays live, so ctrl+x on an idle chat can still say why it does nothing.
func (k *KeyMap) SetTurnRunning(running bool) {
	k.Composer.SetTurnRunning(running)
	k.turnRunning = running
}

// SetTurnResumable tells the key map whether the open chat's latest turn
// stopped at a resumable error: the chat's footer offers resume turn only
// then. As with cancel, the binding stays live and the ui says why it does
// nothing otherwise.
func (k *KeyMap) SetTurnResumable(resumable bool) { k.turnResumable = resumable }

// SetChatCreation tells the key map which chats the open session's agent
// lets a client create (its multipleChats capability): the chat
// switcher's footer offers only those keys. As with resume, the bindings
// stay live, and the ui says why one does nothing.
func (k *KeyMap) SetChatCreation(blank, fork, side bool) {
	k.canNew, k.canFork, k.canSide = blank, fork, side
}

// SetBlockingSelected tells the key map whether the selected MCP server is
// starting and blocking new messages: the MCP footer offers background
// start only then.
func (k *KeyMap) SetBlockingSelected(blocking bool) { k.blockingSelected = blocking }

// MessagesClose is the key that closes the message history (L): the help
// screen's close, said as the history's own.
func (k KeyMap) MessagesClose() key.Binding {
	b := k.HelpScreen.Close
	b.SetHelp(b.Help().Key, "close")
	return b
}

// Answer is what the chat's approve and deny keys act on. Their help names
// the verb for it, and the card and the footer both take it from here
// (ChatKeys.Answers), so the two never disagree.
type Answer int

const (
	AnswerToolCall Answer = iota // a tool call waiting for confirmation
	AnswerResult                 // a tool call's result waiting for review
	AnswerInput                  // an input request waiting for an answer
)

// Answers returns Approve and Deny with the help that says what they do
// to a.
func (k ChatKeys) Answers(a Answer) (approve, deny key.Binding) {
	approve, deny = k.Approve, k.Deny
	switch a {
	case AnswerResult:
		approve.SetHelp(approve.Help().Key, "accept result")
		deny.SetHelp(deny.Help().Key, "reject result")
	case AnswerInput:
		approve.SetHelp(approve.Help().Key, "answer")
		deny.SetHelp(deny.Help().Key, "decline")
	}
	return approve, deny
}

// withoutIdleCancel drops CancelTurn from a help line while no turn runs.
func (k KeyMap) withoutIdleCancel(short []key.Binding) []key.Binding {
	if k.turnRunning {
		return short
	}
	out := make([]key.Binding, 0, len(short))
	for _, b := range short {
		if b.Help() != k.Chat.CancelTurn.Help() {
			out = append(out, b)
		}
	}
	return out
}

// SetTurnRunning switches enter between sending a message (idle chat) and
// queueing it behind the running turn.
func (k *ComposerKeys) SetTurnRunning(running bool) {
	k.Send.SetEnabled(!running)
	k.Queue.SetEnabled(running)
}

// ShortHelp implements help.KeyMap.
func (k GlobalKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.Quit}
}

// FullHelp implements help.KeyMap.
func (k GlobalKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.FocusNext, k.FocusPrev, k.ToggleMCP},
		{k.Inbox, k.SignIns, k.Settings, k.Changes, k.Terminals, k.Reconnect, k.Redraw, k.Messages, k.Help, k.Quit},
	}
}

// ShortHelp implements help.KeyMap.
func (k SessionKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Write, k.New, k.Dispose}
}

// FullHelp implements help.KeyMap.
func (k SessionKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down}, {k.Open, k.Write, k.New, k.Dispose, k.Rename}, {k.HostConnect, k.HostDisconnect, k.HostRetry}}
}

// MultiHost reports whether the host keys are live (SetMultiHost).
func (k KeyMap) MultiHost() bool { return k.Sessions.HostConnect.Enabled() }

// HostKey reports whether b is one of the host keys (by its help).
func (k KeyMap) HostKey(b key.Binding) bool {
	h := b.Help()
	s := k.Sessions
	return h == s.HostConnect.Help() || h == s.HostDisconnect.Help() || h == s.HostRetry.Help()
}

// SetMultiHost turns the host keys on (several hosts) or off (one host:
// the list has no host rows, and ctrl+r reconnects the one host).
func (k *KeyMap) SetMultiHost(on bool) {
	k.Sessions.HostConnect.SetEnabled(on)
	k.Sessions.HostDisconnect.SetEnabled(on)
	k.Sessions.HostRetry.SetEnabled(on)
}

// ShortHelp implements help.KeyMap.
func (k ChatKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.FocusComposer, k.Approve, k.Deny, k.NextBlocker, k.CancelTurn}
}

// FullHelp implements help.KeyMap.
func (k ChatKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.ScrollUp, k.ScrollDown, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.NextToolCall, k.PrevToolCall, k.NextBlocker, k.ToggleExpand, k.Copy},
		{k.Approve, k.Deny, k.PickOption, k.CancelTurn, k.ResumeTurn, k.FocusComposer, k.SwitchChat, k.Queue, k.Subagent, k.Resources, k.Terminal},
	}
}

// ShortHelp implements help.KeyMap.
func (k ComposerKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Send, k.Queue, k.Newline, k.Editor, k.Cancel}
}

// FullHelp implements help.KeyMap.
func (k ComposerKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Send, k.Queue, k.Newline, k.Editor, k.Cancel}}
}

// ShortHelp implements help.KeyMap.
func (k MCPKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Start, k.Stop, k.Toggle, k.SignIn}
}

// FullHelp implements help.KeyMap.
func (k MCPKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down}, {k.Start, k.Stop, k.Toggle, k.SignIn, k.Token, k.Background}}
}

// ShortHelp implements help.KeyMap. It is the footer while a grant prompt
// is selected and no sign-in runs yet, so it offers neither Cancel nor
// CopyURL: there is nothing to cancel or copy before the user grants (the
// running sign-in has a footer of its own).
func (k GrantKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Accept, k.Decline}
}

// FullHelp implements help.KeyMap.
func (k GrantKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Accept, k.Decline, k.Cancel, k.CopyURL, k.ShowURL, k.Paste, k.Device, k.Token, k.GhToken}}
}

// ShortHelp implements help.KeyMap.
func (k SignInKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Forget, k.Close}
}

// FullHelp implements help.KeyMap.
func (k SignInKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Forget, k.Close}}
}

// ShortHelp implements help.KeyMap.
func (k InboxKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Close}
}

// FullHelp implements help.KeyMap.
func (k InboxKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Open, k.Close}}
}

// ShortHelp implements help.KeyMap.
func (k PasteKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Submit, k.Cancel}
}

// FullHelp implements help.KeyMap.
func (k PasteKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Submit, k.Cancel}}
}

// ShortHelp implements help.KeyMap.
func (k InputKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Enter, k.NextField, k.Submit, k.Close, k.Decline}
}

// FullHelp implements help.KeyMap.
func (k InputKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Enter, k.NextField, k.PrevField, k.Submit, k.Close, k.Decline}}
}

// ShortHelp implements help.KeyMap.
func (k NewSessionKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Create, k.Cancel}
}

// FullHelp implements help.KeyMap.
func (k NewSessionKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Prev, k.Next, k.Edit}, {k.Create, k.Cancel}}
}

// ShortHelp implements help.KeyMap.
func (k SettingsKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Close}
}

// FullHelp implements help.KeyMap.
func (k SettingsKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Prev, k.Next, k.Edit, k.Close}}
}

// ShortHelp implements help.KeyMap.
func (k ChatsKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Waiting, k.New, k.Fork, k.Side, k.Close}
}

// FullHelp implements help.KeyMap.
func (k ChatsKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Open, k.Waiting, k.New, k.Fork, k.Side, k.Close}}
}

// ShortHelp implements help.KeyMap.
func (k ResourcesKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Read, k.PageDown, k.Close}
}

// FullHelp implements help.KeyMap.
func (k ResourcesKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Read, k.PageUp, k.PageDown, k.Close}}
}

// ShortHelp implements help.KeyMap.
func (k QueueKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Edit, k.Remove, k.MoveUp, k.MoveDown, k.Close}
}

// FullHelp implements help.KeyMap.
func (k QueueKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Edit, k.Remove, k.MoveUp, k.MoveDown, k.Close}}
}

// ShortHelp implements help.KeyMap.
func (k ChangesKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Reviewed, k.Unreviewed, k.Operation, k.Back}
}

// FullHelp implements help.KeyMap.
func (k ChangesKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Open, k.Back}, {k.TurnPrev, k.TurnNext, k.OrigPrev, k.OrigNext}, {k.Reviewed, k.Unreviewed, k.Operation}}
}

// ShortHelp implements help.KeyMap.
func (k DiffKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.NextHunk, k.NextFile, k.Sideways(), k.Reviewed, k.Back}
}

// Sideways is Left and Right said as one hint: "←/→ sideways".
func (k DiffKeys) Sideways() key.Binding {
	return key.NewBinding(key.WithKeys(append(k.Left.Keys(), k.Right.Keys()...)...),
		key.WithHelp(k.Left.Help().Key+"/"+k.Right.Help().Key, "sideways"))
}

// FullHelp implements help.KeyMap.
func (k DiffKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Left, k.Right}, {k.NextHunk, k.PrevHunk, k.NextFile, k.PrevFile}, {k.Reviewed, k.Back}}
}

// ShortHelp implements help.KeyMap.
func (k TerminalsKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Close}
}

// FullHelp implements help.KeyMap.
func (k TerminalsKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Open, k.Close}}
}

// ShortHelp implements help.KeyMap.
func (k TerminalKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Bottom, k.Input, k.Back}
}

// FullHelp implements help.KeyMap: the pane's keys; Leave is live only
// while typing (ContextTerminalInput).
func (k TerminalKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.ScrollUp, k.ScrollDown, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Input, k.Back}}
}

// ShortHelp implements help.KeyMap.
func (k ConfirmKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Yes, k.No}
}

// FullHelp implements help.KeyMap.
func (k ConfirmKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Yes, k.No}}
}

// ShortHelp implements help.KeyMap.
func (k WidenKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Move, k.Choose, k.Cancel}
}

// FullHelp implements help.KeyMap.
func (k WidenKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Move, k.Choose, k.Cancel}}
}

// ShortHelp implements help.KeyMap.
func (k HelpScreenKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Down, k.Up, k.Close}
}

// FullHelp implements help.KeyMap.
func (k HelpScreenKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Close}}
}

// Context names what has the keyboard. Several groups are live at once in a
// context; Active lists exactly which bindings.
type Context int

const (
	ContextSessions      Context = iota // session list focused
	ContextChat                         // transcript focused
	ContextChatGrant                    // transcript focused, a grant prompt selected
	ContextComposer                     // composer focused (text entry)
	ContextMCP                          // MCP panel focused
	ContextInput                        // input request form open (modal, text entry)
	ContextConfirm                      // yes/no dialog open (modal)
	ContextSignIns                      // the saved sign-ins sheet open (modal)
	ContextPaste                        // the pasted-redirect field open (modal, text entry)
	ContextNewSession                   // new-session dialog open (modal)
	ContextSettings                     // the settings sheet open (modal)
	ContextMessages                     // the message history (L) open (modal)
	ContextQueue                        // the pending-messages sheet (Q) open (modal)
	ContextChats                        // the chat switcher (c) open (modal)
	ContextInbox                        // the inbox (I) open (modal)
	ContextChanges                      // the changes view (C) open (modal)
	ContextDiff                         // a file's diff open in the changes view (modal)
	ContextResources                    // the resources sheet (A) open (modal)
	ContextTerminals                    // the terminals list (T) open (modal)
	ContextTerminal                     // a terminal pane open (modal)
	ContextTerminalInput                // typing into a terminal (modal, every key is the terminal's)
	ContextWiden                        // confirming a value that lets more run without asking (modal)
)

// Contexts lists every Context, for iteration in tests and docs.
var Contexts = []Context{
	ContextSessions, ContextChat, ContextChatGrant, ContextComposer,
	ContextMCP, ContextInput, ContextConfirm, ContextSignIns, ContextPaste, ContextNewSession,
	ContextSettings,
	ContextMessages,
	ContextQueue,
	ContextChats,
	ContextInbox,
	ContextChanges, ContextDiff,
	ContextResources,
	ContextTerminals, ContextTerminal, ContextTerminalInput,
	ContextWiden,
}

func (c Context) String() string {
	switch c {
	case ContextSessions:
		return "sessions"
	case ContextChat:
		return "chat"
	case ContextChatGrant:
		return "chat+grant"
	case ContextComposer:
		return "composer"
	case ContextMCP:
		return "mcp"
	case ContextInput:
		return "input"
	case ContextConfirm:
		return "confirm"
	case ContextSignIns:
		return "sign-ins"
	case ContextPaste:
		return "paste"
	case ContextNewSession:
		return "new session"
	case ContextSettings:
		return "settings"
	case ContextMessages:
		return "messages"
	case ContextQueue:
		return "queue"
	case ContextChats:
		return "chats"
	case ContextInbox:
		return "inbox"
	case ContextChanges:
		return "changes"
	case ContextDiff:
		return "diff"
	case ContextResources:
		return "resources"
	case ContextTerminals:
		return "terminals"
	case ContextTerminal:
		return "terminal"
	case ContextTerminalInput:
		return "terminal input"
	case ContextWiden:
		return "confirm widening"
	}
	return fmt.Sprintf("Context(%d)", int(c))
}

// TextEntry reports whether printable keys in ctx type text rather than
// trigger bindings.
func (c Context) TextEntry() bool {
	return c == ContextComposer || c == ContextInput || c == ContextPaste || c == ContextTerminalInput
}

// Active returns the bindings live in ctx, the ones ui should match a key
// press against, in matching order (view first, then global). Disabled
// bindings are left out.
func (k KeyMap) Active(ctx Context) []key.Binding {
	var out []key.Binding
	for _, b := range k.bindings(ctx) {
		if b.Enabled() {
			out = append(out, b)
		}
	}
	return out
}

// bindings is every binding ctx takes, enabled now or not: the view's own,
// then the global ones that work there.
func (k KeyMap) bindings(ctx Context) []key.Binding {
	g := k.Global
	nav := []key.Binding{g.Quit, g.Help, g.FocusNext, g.FocusPrev, g.Reconnect, g.ToggleMCP, g.SignIns, g.Messages, g.Settings, g.Inbox, g.Changes, g.Terminals}
	var view []key.Binding
	switch ctx {
	case ContextSessions:
		view = flatten(k.Sessions.FullHelp())
	case ContextChat:
		view = flatten(k.Chat.FullHelp())
	case ContextChatGrant:
		view = append(flatten(k.Grant.FullHelp()), flatten(k.Chat.FullHelp())...)
	case ContextComposer:
		view = append(flatten(k.Composer.FullHelp()), k.Chat.CancelTurn)
		nav = []key.Binding{g.Interrupt, g.FocusNext, g.FocusPrev, g.Reconnect}
	case ContextMCP:
		view = flatten(k.MCP.FullHelp())
	case ContextInput:
		view = flatten(k.Input.FullHelp())
		nav = []key.Binding{g.Interrupt, g.Reconnect}
	case ContextConfirm:
		view = flatten(k.Confirm.FullHelp())
		nav = []key.Binding{g.Interrupt}
	case ContextSignIns:
		view = flatten(k.SignIns.FullHelp())
		nav = []key.Binding{g.Quit, g.Help}
	case ContextPaste:
		view = flatten(k.Paste.FullHelp())
		nav = []key.Binding{g.Interrupt}
	case ContextNewSession:
		view = flatten(k.NewSession.FullHelp())
		nav = []key.Binding{g.Interrupt}
	case ContextSettings:
		view = flatten(k.Settings.FullHelp())
		nav = []key.Binding{g.Quit, g.Help}
	case ContextMessages:
		view = []key.Binding{k.MessagesClose(), g.Messages}
		nav = []key.Binding{g.Quit}
	case ContextQueue:
		view = flatten(k.Queue.FullHelp())
		nav = []key.Binding{g.Quit, g.Help}
	case ContextChats:
		view = flatten(k.Chats.FullHelp())
		nav = []key.Binding{g.Quit, g.Help}
	case ContextInbox:
		view = flatten(k.Inbox.FullHelp())
		nav = []key.Binding{g.Quit, g.Help}
	case ContextResources:
		view = flatten(k.Resources.FullHelp())
		nav = []key.Binding{g.Quit, g.Help}
	case ContextChanges:
		view = flatten(k.Changes.FullHelp())
		nav = []key.Binding{g.Quit, g.Help, g.Changes, g.Reconnect}
	case ContextDiff:
		view = flatten(k.Diff.FullHelp())
		nav = []key.Binding{g.Quit, g.Help, g.Changes, g.Reconnect}
	case ContextTerminals:
		view = flatten(k.Terminals.FullHelp())
		nav = []key.Binding{g.Quit, g.Help, g.Reconnect}
	case ContextTerminal:
		view = flatten(k.Terminal.FullHelp())
		nav = []key.Binding{g.Quit, g.Help, g.Terminals, g.Reconnect}
	case ContextTerminalInput:
		view = []key.Binding{k.Terminal.Leave}
		nav = []key.Binding{g.Interrupt}
	case ContextWiden:
		view = flatten(k.Widen.FullHelp())
		nav = []key.Binding{g.Interrupt}
	}
	if ctx != ContextTerminalInput {
		nav = append(nav, g.Redraw) // ctrl+l works wherever the terminal's shell does not take it
	}
	return append(view, nav...)
}

func flatten(groups [][]key.Binding) []key.Binding {
	var out []key.Binding
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// Help returns what bubbles/help should show in ctx: the short line is the
// view's most useful keys plus help and quit; the full view has a column per
// group.
func (k KeyMap) Help(ctx Context) help.KeyMap {
	g := k.Global
	var short []key.Binding
	var full [][]key.Binding
	switch ctx {
	case ContextSessions:
		short, full = k.Sessions.ShortHelp(), k.Sessions.FullHelp()
	case ContextChat:
		short, full = k.withoutIdleCancel(k.Chat.ShortHelp()), k.Chat.FullHelp()
		if k.turnResumable {
			short = append([]key.Binding{k.Chat.ResumeTurn}, short...)
		}
	case ContextChatGrant:
		short = append(k.Grant.ShortHelp(), k.Chat.NextBlocker)
		full = append(k.Grant.FullHelp(), k.Chat.FullHelp()...)
	case ContextComposer:
		short = k.withoutIdleCancel(append(k.Composer.ShortHelp(), k.Chat.CancelTurn))
		full = append(k.Composer.FullHelp(), []key.Binding{k.Chat.CancelTurn, g.FocusNext, g.Reconnect, g.Interrupt})
		return contextHelp{short: append(short, g.Interrupt), full: full}
	case ContextMCP:
		short, full = k.MCP.ShortHelp(), k.MCP.FullHelp()
		if k.blockingSelected {
			short = append([]key.Binding{k.MCP.Background}, short...)
		}
	case ContextInput:
		short, full = k.Input.ShortHelp(), k.Input.FullHelp()
		return contextHelp{short: append(short, g.Interrupt), full: append(full, []key.Binding{g.Reconnect, g.Interrupt})}
	case ContextConfirm:
		return contextHelp{short: k.Confirm.ShortHelp(), full: k.Confirm.FullHelp()}
	case ContextWiden:
		return contextHelp{short: append(k.Widen.ShortHelp(), g.Interrupt), full: append(k.Widen.FullHelp(), []key.Binding{g.Interrupt})}
	case ContextSignIns:
		return contextHelp{short: append(k.SignIns.ShortHelp(), g.Quit), full: append(k.SignIns.FullHelp(), []key.Binding{g.Help, g.Quit})}
	case ContextPaste:
		return contextHelp{short: append(k.Paste.ShortHelp(), g.Interrupt), full: append(k.Paste.FullHelp(), []key.Binding{g.Interrupt})}
	case ContextNewSession:
		return contextHelp{short: k.NewSession.ShortHelp(), full: k.NewSession.FullHelp()}
	case ContextMessages:
		// The history covers the panels: their keys do nothing under it.
		return contextHelp{short: []key.Binding{k.MessagesClose(), g.Quit}, full: [][]key.Binding{{k.MessagesClose(), g.Messages, g.Quit}}}
	case ContextQueue:
		return contextHelp{short: append(k.Queue.ShortHelp(), g.Quit), full: append(k.Queue.FullHelp(), []key.Binding{g.Help, g.Quit})}
	case ContextChats:
		var short []key.Binding
		for _, b := range k.Chats.ShortHelp() {
			if (b.Help() != k.Chats.New.Help() || k.canNew) && (b.Help() != k.Chats.Fork.Help() || k.canFork) && (b.Help() != k.Chats.Side.Help() || k.canSide) {
				short = append(short, b)
			}
		}
		return contextHelp{short: append(short, g.Quit), full: append(k.Chats.FullHelp(), []key.Binding{g.Help, g.Quit})}
	case ContextInbox:
		return contextHelp{short: append(k.Inbox.ShortHelp(), g.Quit), full: append(k.Inbox.FullHelp(), []key.Binding{g.Help, g.Quit})}
	case ContextResources:
		return contextHelp{short: append(k.Resources.ShortHelp(), g.Quit), full: append(k.Resources.FullHelp(), []key.Binding{g.Help, g.Quit})}
	case ContextChanges:
		return contextHelp{short: append(k.Changes.ShortHelp(), g.Help, g.Quit), full: append(k.Changes.FullHelp(), []key.Binding{g.Changes, g.Reconnect, g.Help, g.Quit})}
	case ContextDiff:
		return contextHelp{short: append(k.Diff.ShortHelp(), g.Help, g.Quit), full: append(k.Diff.FullHelp(), []key.Binding{g.Changes, g.Reconnect, g.Help, g.Quit})}
	case ContextTerminals:
		return contextHelp{short: append(k.Terminals.ShortHelp(), g.Help, g.Quit), full: append(k.Terminals.FullHelp(), []key.Binding{g.Reconnect, g.Help, g.Quit})}
	case ContextTerminal:
		return contextHelp{short: append(k.Terminal.ShortHelp(), g.Help, g.Quit), full: append(k.Terminal.FullHelp(), []key.Binding{g.Terminals, g.Reconnect, g.Help, g.Quit})}
	case ContextTerminalInput:
		return contextHelp{short: []key.Binding{k.Terminal.Leave, g.Interrupt}, full: [][]key.Binding{{k.Terminal.Leave, g.Interrupt}}}
	}
	return contextHelp{
		short: append(append(short, k.More(ctx)...), g.ShortHelp()...),
		full:  append(full, g.FullHelp()...),
	}
}

// More is what a footer offers after a context's own keys where the
// line has room (views.FitShortHelp drops them from the end first): the
// sheets that open from here, which the footer otherwise never named
// (issue 36). ? lists the rest, the keys of here first.
func (k KeyMap) More(ctx Context) []key.Binding {
	g, c := k.Global, k.Chat
	switch ctx {
	case ContextChat:
		return []key.Binding{c.SwitchChat, c.Queue, c.Resources, g.Changes, g.Terminals, g.Settings, g.Messages}
	case ContextSessions:
		return []key.Binding{g.Inbox, g.Settings, g.SignIns, g.Messages}
	case ContextMCP:
		return []key.Binding{g.Settings, g.Messages}
	}
	return nil
}

type contextHelp struct {
	short []key.Binding
	full  [][]key.Binding
}

func (h contextHelp) ShortHelp() []key.Binding  { return h.short }
func (h contextHelp) FullHelp() [][]key.Binding { return h.full }

// ShortHelp implements help.KeyMap with the global keys, for a screen that
// has no focused view yet (e.g. while connecting).
func (k KeyMap) ShortHelp() []key.Binding { return k.Global.ShortHelp() }

// FullHelp implements help.KeyMap: every group, one column each, for a
// complete key reference.
func (k KeyMap) FullHelp() [][]key.Binding {
	var out [][]key.Binding
	for _, g := range []help.KeyMap{k.Global, k.Sessions, k.Chat, k.Composer, k.MCP, k.Grant, k.Input, k.Confirm, k.SignIns, k.Paste, k.NewSession, k.Queue, k.Chats, k.Resources, k.Inbox, k.Changes, k.Diff, k.Terminals, k.Terminal, k.HelpScreen} {
		col := flatten(g.FullHelp())
		if _, ok := g.(InputKeys); ok {
			col = append(append(col, k.Input.ChoiceHelp()...), k.Input.BooleanHelp()...)
		}
		out = append(out, col)
	}
	return out
}

// checkBindings reports, for one set of bindings live at the same time
// (named where), a binding without help text, a key bound twice and, when
// textEntry, a printable key that would swallow typed text.
func checkBindings(where string, bindings []key.Binding, textEntry bool) []error {
	var errs []error
	owner := map[string]string{}
	for _, b := range bindings {
		h := b.Help()
		name := h.Key + " (" + h.Desc + ")"
		if h.Key == "" || h.Desc == "" {
			errs = append(errs, fmt.Errorf("%s: binding %v has no help text", where, b.Keys()))
		}
		for _, kk := range b.Keys() {
			if prev, dup := owner[kk]; dup {
				errs = append(errs, fmt.Errorf("%s: key %q bound to both %s and %s", where, kk, prev, name))
				continue
			}
			owner[kk] = name
			if textEntry && printable(kk) {
				errs = append(errs, fmt.Errorf("%s: printable key %q bound to %s would swallow typed text", where, kk, name))
			}
		}
	}
	return errs
}

// Validate reports every key bound twice among the bindings live in one
// context, and every printable key bound in a text-entry context (it would
// eat what the user types). A binding with keys but no help text is
// reported too: help is how users find it.
func (k KeyMap) Validate() error {
	var errs []error
	for _, ctx := range Contexts {
		errs = append(errs, checkBindings(ctx.String(), k.Active(ctx), ctx.TextEntry())...)
	}
	// The choice keys are live, with the form-wide keys, on a question of
	// their kind.
	for kind, group := range map[string][]key.Binding{"input choice": k.Input.ChoiceHelp(), "input yes/no": k.Input.BooleanHelp()} {
		errs = append(errs, checkBindings(kind, append(flatten(k.Input.FullHelp()), group...), false)...)
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}

// printable reports whether a keystring is text a user types: one rune, or
// space. "shift+x" style names only occur without text, so they count as
// keys.
func printable(k string) bool {
	if k == "space" {
		return true
	}
	return utf8.RuneCountInString(k) == 1 && !strings.ContainsRune("\t\r\n", []rune(k)[0])
}
