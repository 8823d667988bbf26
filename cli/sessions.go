package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// sessionJSON is one session in --json output (README, Scripting).
type sessionJSON struct {
	// Host names the session's host in a multi-host run (its label and
	// token-free URL); absent on one host.
	Host       string `json:"host,omitempty"`
	Session    string `json:"session"`
	Title      string `json:"title"`
	Status     string `json:"status"`
	Provider   string `json:"provider"`
	Activity   string `json:"activity,omitempty"`
	CreatedAt  string `json:"createdAt,omitempty"`
	ModifiedAt string `json:"modifiedAt,omitempty"`
}

func sessionOf(s protocol.SessionSummary) sessionJSON {
	j := sessionJSON{Session: s.Resource, Title: s.Title, Status: statusWord(s.Status), Provider: s.Provider,
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
		return "", usagef("no session %s on this host (ahptui sessions lists them)", views_quote(arg))
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
	if err := c.Subscribe(ctx, uri); err != nil {
		return protocol.SessionState{}, uri, protocol.ChatState{}, fmt.Errorf("subscribe to %s: %w", hostText(uri), err)
	}
	sess, _ := c.Session(uri)
	c.pushSaved(ctx, &sess)
	chat := defaultChat(sess)
	if chat == "" {
		return sess, uri, protocol.ChatState{}, nil
	}
	if err := c.Subscribe(ctx, chat); err != nil {
		return sess, uri, protocol.ChatState{}, fmt.Errorf("subscribe to %s: %w", hostText(chat), err)
	}
	ch, _ := c.Chat(chat)
	return sess, uri, ch, nil
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
	Host     string       `json:"host,omitempty"` // in a multi-host run, as sessionJSON's
	Session  string       `json:"session"`
	Chat     string       `json:"chat"`
	Kind     string       `json:"kind"` // approval, result-approval, input, sign-in
	ToolCall string       `json:"toolCall,omitempty"`
	Request  string       `json:"request,omitempty"`
	Name     string       `json:"name"`
	Options  []optionJSON `json:"options,omitempty"`
	// Questions are an input request's, for answer's ID=VALUE.
	Questions []questionJSON `json:"questions,omitempty"`
	Answer    string         `json:"answer"`
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

// waiting lists what the chat's running turn waits on the user for.
func waiting(sess protocol.SessionState, session string, chat protocol.ChatState) []waitJSON {
	if chat.ActiveTurn == nil {
		return nil
	}
	rows := views.MCPServerRows(views.SessionCustomizations(sess))
	needsSignIn := func(id string) bool {
		i := slices.IndexFunc(rows, func(r views.MCPServerRow) bool { return r.ID == id })
		return i >= 0 && rows[i].StateKind == "authRequired"
	}
	// signInAnswer is the auth login that answers a tool call's sign-in:
	// its own challenge (auth-required), or its MCP server's.
	signInAnswer := func(tc protocol.ToolCallState) string {
		resource := ""
		if ar, ok := tc.Variant.(protocol.ToolCallAuthRequiredState); ok {
			resource = ar.Auth.Resource.Resource
		} else if i := slices.IndexFunc(rows, func(r views.MCPServerRow) bool { return r.ID == tc.McpServer() }); i >= 0 && rows[i].Auth != nil {
			resource = rows[i].Auth.Resource.Resource
		}
		if resource == "" {
			return "ahptui (the terminal UI) signs in"
		}
		return "ahptui auth login " + resource + " --session " + session
	}
	var out []waitJSON
	for _, p := range chat.ActiveTurn.ResponseParts {
		switch v := p.Variant.(type) {
		case protocol.ToolCallResponsePart:
			tc := v.ToolCall
			if !tc.WaitsOnUser(needsSignIn) {
				continue
			}
			w := waitJSON{Session: session, Chat: chat.Resource, ToolCall: tc.ID(), Name: tc.Name(), Options: optionsOf(tc)}
			switch tc.Status() {
			case protocol.ToolCallStatusPendingConfirmation:
				w.Kind, w.Answer = "approval", "ahptui approve "+session+" "+tc.ID()
			case protocol.ToolCallStatusPendingResultConfirmation:
				w.Kind, w.Answer = "result-approval", "ahptui approve "+session+" "+tc.ID()
			default:
				w.Kind, w.Answer = "sign-in", signInAnswer(tc)
			}
			out = append(out, w)
		case protocol.InputRequestResponsePart:
			if v.Response != nil {
				continue
			}
			name := ""
			if v.Request.Message != nil {
				name = *v.Request.Message
			}
			out = append(out, waitJSON{Session: session, Chat: chat.Resource, Kind: "input", Request: v.Request.ID,
				Name: name, Questions: questionsOf(v.Request), Answer: "ahptui answer " + session})
		}
	}
	return out
}
