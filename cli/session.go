package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/waits"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// sessionJSON is one session in --json output (README, Scripting).
type sessionJSON struct {
	// Host names the session's host where a command reads several
	// (status); absent from sessions, which reads one.
	Host       *hostRef `json:"host,omitempty"`
	Session    string   `json:"session"`
	Title      string   `json:"title"`
	Status     string   `json:"status"`
	Provider   string   `json:"provider"`
	Activity   string   `json:"activity,omitempty"`
	CreatedAt  string   `json:"createdAt,omitempty"`
	ModifiedAt string   `json:"modifiedAt,omitempty"`
}

func sessionOf(s protocol.SessionSummary) sessionJSON {
	j := sessionJSON{Session: s.Resource, Title: s.Title, Status: views.StatusWord(s.Status), Provider: s.Provider,
		CreatedAt: s.CreatedAt, ModifiedAt: s.ModifiedAt}
	if s.Activity != nil {
		j.Activity = *s.Activity
	}
	return j
}

// sessionID is the part of a session URI after its scheme ("demo" for
// ahp-session:/demo), which commands accept for the whole URI.
func sessionID(uri string) string {
	_, id, ok := strings.Cut(uri, ":")
	if !ok {
		return uri
	}
	return strings.TrimLeft(id, "/")
}

// findSession is the session arg names among the host's: its URI, its id
// (the URI after the scheme) or a prefix of the id only it has.
func findSession(list []protocol.SessionSummary, arg string) (string, error) {
	if arg == "" {
		return "", usagef("no session given: name one (ahptui sessions lists them)")
	}
	var prefixed []string
	for _, s := range list {
		if s.Resource == arg || sessionID(s.Resource) == arg {
			return s.Resource, nil
		}
		if strings.HasPrefix(sessionID(s.Resource), arg) {
			prefixed = append(prefixed, s.Resource)
		}
	}
	switch len(prefixed) {
	case 1:
		return prefixed[0], nil
	case 0:
		return "", notFoundf("no session %s on this host (ahptui sessions lists them)", views_quote(arg))
	}
	shown := make([]string, len(prefixed))
	for i, p := range prefixed {
		shown[i] = hostText(p)
	}
	return "", usagef("%s names several sessions: %s", views_quote(arg), strings.Join(shown, ", "))
}

// isSessionURI: arg is a whole session URI (scheme, colon, path), not an
// id or a prefix of one.
func isSessionURI(arg string) bool {
	scheme, rest, ok := strings.Cut(arg, ":")
	return ok && scheme != "" && strings.HasPrefix(rest, "/") && !strings.ContainsAny(scheme, "/ ")
}

// session subscribes to the session arg names and to its default chat,
// and returns both snapshots.
func (c *conn) session(ctx context.Context, arg string) (protocol.SessionState, string, protocol.ChatState, error) {
	list, err := c.ListSessions(ctx)
	if err != nil {
		return protocol.SessionState{}, "", protocol.ChatState{}, fmt.Errorf("list sessions: %w", err)
	}
	uri, err := findSession(list, arg)
	if err != nil && !isSessionURI(arg) {
		return protocol.SessionState{}, "", protocol.ChatState{}, err
	}
	if err != nil {
		// A whole URI the list lacks: VS Code's host lists a session
		// only once it has run, yet it may be subscribed to (as the UI
		// that created it is). Not there after all: the list's answer.
		if c.Subscribe(ctx, arg) != nil {
			return protocol.SessionState{}, "", protocol.ChatState{}, err
		}
		uri = arg
	}
	sess, ch, err := c.open(ctx, uri)
	return sess, uri, ch, err
}

// open subscribes to session uri and to its default chat, and returns
// both snapshots (the chat's zero when the session has none).
func (c *conn) open(ctx context.Context, uri string) (protocol.SessionState, protocol.ChatState, error) {
	if err := c.Subscribe(ctx, uri); err != nil {
		return protocol.SessionState{}, protocol.ChatState{}, fmt.Errorf("subscribe to %s: %w", hostText(uri), err)
	}
	sess, _ := c.Session(uri)
	c.pushSaved(ctx, &sess)
	chat := defaultChat(sess)
	if chat == "" {
		return sess, protocol.ChatState{}, nil
	}
	if err := c.Subscribe(ctx, chat); err != nil {
		return sess, protocol.ChatState{}, fmt.Errorf("subscribe to %s: %w", hostText(chat), err)
	}
	ch, _ := c.Chat(chat)
	return sess, ch, nil
}

// defaultChat is the chat a session opens on, as in the UI: its default,
// else its first.
func defaultChat(s protocol.SessionState) string {
	if s.DefaultChat != nil {
		return *s.DefaultChat
	}
	if len(s.Chats) > 0 {
		return s.Chats[0].Resource
	}
	return ""
}

// waitJSON is one thing a session waits on the user for, with the
// command that answers it.
type waitJSON struct {
	Host     *hostRef     `json:"host,omitempty"` // in status, as sessionJSON's
	Session  string       `json:"session"`
	Chat     string       `json:"chat,omitempty"`
	Kind     string       `json:"kind"` // approval, result-approval, input, sign-in, mcp-failed, turn-error, needs-input
	ToolCall string       `json:"toolCall,omitempty"`
	Request  string       `json:"request,omitempty"`
	Server   string       `json:"server,omitempty"`
	Resource string       `json:"resource,omitempty"`
	Name     string       `json:"name"`
	Options  []optionJSON `json:"options,omitempty"`
	// Questions are an input request's, for answer's ID=VALUE.
	Questions []questionJSON `json:"questions,omitempty"`
	// Answer is the command that answers, quoted for a POSIX shell;
	// AnswerArgs the same command as its arguments.
	Answer     string   `json:"answer"`
	AnswerArgs []string `json:"answerArgs,omitempty"`
}

// optionJSON is one confirmation option a tool call offers, numbered from
// 1 as --option takes it.
type optionJSON struct {
	N     int    `json:"n"`
	ID    string `json:"id"`
	Label string `json:"label"`
	Kind  string `json:"kind"`
}

func optionsOf(tc protocol.ToolCallState) []optionJSON {
	pc, ok := tc.Variant.(protocol.ToolCallPendingConfirmationState)
	if !ok {
		return nil
	}
	out := make([]optionJSON, len(pc.Options))
	for i, o := range pc.Options {
		out[i] = optionJSON{N: i + 1, ID: o.ID, Label: o.Label, Kind: string(o.Kind)}
	}
	return out
}

// uiSignsIn is the answer of a sign-in whose resource the host did not
// say: no command can, the terminal UI's grant prompt does.
const uiSignsIn = "ahptui (the terminal UI) signs in"

// answerText is an answer's argv as printed: quoted for a POSIX shell
// (host/waits.Quote, the one quoting every printed command uses).
func answerText(argv []string) string {
	if argv == nil {
		return uiSignsIn
	}
	return waits.Quote(argv)
}

// waitOf is item it as --json writes it.
func waitOf(it waits.Item) waitJSON {
	w := waitJSON{Session: it.Session, Chat: it.Chat, Kind: it.Word(), ToolCall: it.ToolCall, Request: it.Request,
		Server: it.Server, Resource: it.Resource, Name: it.Name, Answer: answerText(it.Answer), AnswerArgs: it.Answer}
	if it.Kind == waits.NeedsInput {
		w.Name = it.Detail
	}
	if it.Call != nil && it.Kind == waits.Approval {
		w.Options = optionsOf(*it.Call)
	}
	if it.Input != nil {
		w.Questions = questionsOf(*it.Input)
	}
	return w
}

// sessionWaits is what waits on the user in one opened session: the
// derivation (host/waits) over its state and chat, answers reaching the
// host through flags.
func sessionWaits(sess protocol.SessionState, session string, chat protocol.ChatState, flags []string) []waits.Item {
	ws := waits.Session{Summary: protocol.SessionSummary{Resource: session, Title: sess.Title}, State: &sess}
	if chat.Resource != "" {
		ws.Chats = []protocol.ChatState{chat}
	}
	return waits.Derive(waits.Host{Flags: flags, Sessions: []waits.Session{ws}})
}

// waiting lists what the chat's turns wait on the user for: its tool
// calls to approve or sign in for and its input requests (what send,
// watch and approve act on).
func waiting(sess protocol.SessionState, session string, chat protocol.ChatState, flags ...string) []waitJSON {
	var out []waitJSON
	for _, it := range sessionWaits(sess, session, chat, flags) {
		if it.ID() != "" && it.Chat == chat.Resource {
			out = append(out, waitOf(it))
		}
	}
	return out
}

// allWaiting lists everything that waits on the user in the session:
// waiting's, and its MCP servers failed or waiting for sign-in and a turn
// stopped on an error (what show and status list).
func allWaiting(sess protocol.SessionState, session string, chat protocol.ChatState, flags []string) []waitJSON {
	out := []waitJSON{}
	for _, it := range sessionWaits(sess, session, chat, flags) {
		out = append(out, waitOf(it))
	}
	return out
}

// hostWaits is what waits on the user on c's host (host/waits over every
// session it lists, each opened with its default chat), answers reaching
// the host through flags. A session that cannot be opened counts by its
// status alone, unless that says it waits: then its error is the host's.
func hostWaits(ctx context.Context, c *conn, list []protocol.SessionSummary, flags []string) ([]waits.Item, error) {
	h := waits.Host{Name: c.host, Flags: flags}
	for _, s := range list {
		sess, chat, err := c.open(ctx, s.Resource)
		if err != nil {
			if s.Status.Has(protocol.SessionStatusInputNeeded) || s.Status.Has(protocol.SessionStatusError) {
				return nil, err
			}
			continue
		}
		ws := waits.Session{Summary: s, State: &sess}
		if chat.Resource != "" {
			ws.Chats = []protocol.ChatState{chat}
		}
		h.Sessions = append(h.Sessions, ws)
	}
	return waits.Derive(h), nil
}

// namedHost is the host as the flags named it, for a command to name it
// again: a saved host's name, or the --host URL without its connection
// token; "" when no --host was given.
func (a *app) namedHost() string {
	if a.host == "" || a.demo {
		return ""
	}
	if !strings.Contains(a.host, "://") {
		return a.host // a saved host's name
	}
	if t, err := dial.Parse(a.host); err == nil {
		return t.URL
	}
	return dial.Redact(a.host)
}

// hostFlags are the flags that reach c's host again from a printed
// command: --host with the name or token-free URL the run used (the URL
// VS Code's registry gave, when no --host was); none for --demo, which
// starts a host of its own each run.
func (a *app) hostFlags(c *conn) []string {
	if a.demo {
		return nil
	}
	if h := a.namedHost(); h != "" {
		return []string{"--host", h}
	}
	return []string{"--host", c.host}
}
