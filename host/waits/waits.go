// Package waits derives what waits on the user from a host's state: the
// one derivation the terminal UI (its inbox, the chat's blockers and !)
// and the commands (status, inbox, show, exit code 5) share. It is pure:
// it reads the state it is given and keeps nothing; when each item was
// first seen is the UI's to remember.
package waits

import (
	"cmp"
	"slices"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// Kind is what an item waits for.
type Kind int

const (
	Approval   Kind = iota // a tool call, or its result, to confirm
	Input                  // an input request to answer
	SignIn                 // a tool call, an MCP server or the agent waiting for sign-in
	MCPFailed              // an MCP server in its error state
	TurnError              // a chat's latest turn stopped on an error
	NeedsInput             // a session whose status says input-needed, not opened
)

// String is the kind in the UI's words.
func (k Kind) String() string {
	return [...]string{"approval", "input request", "sign-in", "MCP server failed", "turn stopped on an error", "needs input"}[k]
}

// Word is the kind as --json names it.
func (it Item) Word() string {
	if it.Kind == Approval && it.Result {
		return "result-approval"
	}
	return [...]string{"approval", "input", "sign-in", "mcp-failed", "turn-error", "needs-input"}[it.Kind]
}

// Key identifies an item across updates: the same wait has the same key.
type Key struct {
	Host    string
	Kind    Kind
	Session string
	Chat    string
	ID      string // the tool call's or input request's id
	Turn    string
	Server  string // the MCP server's id, or AgentPrefix and the resource
}

// Compare orders keys by host, then kind (in the UI's words), then the rest.
func (k Key) Compare(o Key) int {
	return cmp.Or(cmp.Compare(k.Host, o.Host), cmp.Compare(k.Kind.String(), o.Kind.String()),
		cmp.Compare(k.Session, o.Session), cmp.Compare(k.Chat, o.Chat), cmp.Compare(k.ID, o.ID),
		cmp.Compare(k.Turn, o.Turn), cmp.Compare(k.Server, o.Server))
}

// AgentPrefix marks the Server of an agent sign-in (a resource the host
// asked this client to sign in to), keeping it apart from a server id.
const AgentPrefix = "agent-sign-in:"

// Item is one thing that waits on the user. Every string is the host's,
// raw: each front-end makes it safe where it shows it.
type Item struct {
	Host     string // the host as the user named it, token-free
	Session  string
	Title    string // the session's title
	Modified string // when the host last changed the session (modifiedAt, else createdAt)
	Chat     string
	Turn     string
	Kind     Kind
	Result   bool   // an Approval of the call's result
	ToolCall string // the tool call's id (Approval, SignIn of a call)
	Request  string // the input request's id (Input)
	Server   string // the MCP server's id (SignIn of a server, MCPFailed), or AgentPrefix+resource
	Resource string // what a sign-in is for, when the host said
	Name     string // the tool's, server's or resource's name; the request's message; the turn's error
	Detail   string // a NeedsInput row's note (why it is not opened), from the caller
	// Listed: the session's inputNeeded lists it (else only its chat
	// shows it, before the host lists it).
	Listed bool
	// Call and Request are the tool call and input request themselves,
	// for their options and questions.
	Call  *protocol.ToolCallState
	Input *protocol.ChatInputRequest
	// Answer is the command that answers the item, as an argv ("ahptui",
	// the command, the host's flags, its arguments); nil when only the
	// terminal UI can (a sign-in whose resource the host did not say).
	Answer []string
}

// ID is the item's tool call or request id, whichever it has.
func (it Item) ID() string { return cmp.Or(it.ToolCall, it.Request) }

// Key is the item's identity.
func (it Item) Key() Key {
	return Key{Host: it.Host, Kind: it.Kind, Session: it.Session, Chat: it.Chat, ID: it.ID(), Turn: it.Turn, Server: it.Server}
}

// Session is one session of the host, as far as the caller has it.
type Session struct {
	Summary protocol.SessionSummary
	// State is the session's state; nil when it is not subscribed to,
	// and then only its summary's status says whether it waits.
	State *protocol.SessionState
	// Chats are the session's subscribed chats.
	Chats []protocol.ChatState
	// Open: the user has this session open, so what it shows is what
	// waits; with nothing to show, no "needs input" row stands in for it
	// (the host may be slow to drop a request just answered).
	Open bool
	// Prompts are resources the host asked this client to sign in to
	// (auth/required, a -32007, the agent's required resources).
	Prompts []string
	// Detail is the note on the session's "needs input" row.
	Detail string
	// Servers are State's MCP server rows when the caller has them at
	// hand (the UI keeps them memoized); nil derives them from State.
	Servers []views.MCPServerRow
}

// Host is what the caller knows of one host.
type Host struct {
	// Name is the host as items name it (token-free URL or saved name).
	Name string
	// Flags reach the host from a command: --host NAME, or nothing.
	Flags    []string
	Sessions []Session
}

// Derive lists what waits on the user on h, session by session in h's
// order: in an opened session its approvals, input requests and
// sign-ins (what its chats show and what its inputNeeded lists), its
// MCP servers that failed or wait for sign-in, the agent's sign-ins
// and each chat's turn stopped on an error; a session not opened whose
// status says input-needed is one NeedsInput item.
func Derive(h Host) []Item {
	var out []Item
	for _, s := range h.Sessions {
		out = append(out, deriveSession(h, s)...)
	}
	return out
}

func deriveSession(h Host, s Session) []Item {
	uri := s.Summary.Resource
	base := Item{Host: h.Name, Session: uri, Title: s.Summary.Title, Modified: cmp.Or(s.Summary.ModifiedAt, s.Summary.CreatedAt)}
	inputNeeded := s.Summary.Status.Has(protocol.SessionStatusInputNeeded)
	if s.State == nil {
		out := prompts(h, base, s)
		if len(out) == 0 && inputNeeded && !s.Open {
			it := base
			it.Kind, it.Detail = NeedsInput, s.Detail
			it.Answer = command(h, []string{"show"}, nil, uri)
			out = append(out, it)
		}
		return out
	}
	st := *s.State
	if base.Title == "" {
		base.Title = st.Title
	}
	rows := s.Servers
	if rows == nil {
		rows = views.MCPServerRows(views.SessionCustomizations(st))
	}
	serverAuth := func(id string) (*protocol.McpAuthRequirement, bool) {
		i := slices.IndexFunc(rows, func(r views.MCPServerRow) bool { return r.ID == id })
		if i < 0 || rows[i].StateKind != "authRequired" {
			return nil, false
		}
		return rows[i].Auth, true
	}
	needsSignIn := func(id string) bool { _, ok := serverAuth(id); return ok }
	signIn := func(it *Item, resource string) {
		it.Resource = resource
		if resource != "" {
			it.Answer = command(h, []string{"auth", "login"}, []string{"--session", uri}, resource)
		}
	}
	var out []Item
	listed := map[[2]string]bool{}
	// What the session's inputNeeded lists, unless a subscribed chat shows
	// it answered (on its way to the host).
	for _, r := range st.InputNeeded {
		it := base
		switch v := r.Variant.(type) {
		case protocol.SessionChatInputRequest:
			it.Chat, it.Kind, it.Request = v.Chat, Input, v.Request.ID
			req := v.Request
			it.Input, it.Name = &req, deref(req.Message)
		case protocol.SessionToolConfirmationRequest:
			tsv, ok := v.ToolCall.Variant.(protocol.ToolCallStateVariant)
			if !ok {
				continue
			}
			tc := protocol.ToolCallState{Variant: tsv}
			it.Chat, it.Turn, it.Kind, it.ToolCall, it.Call = v.Chat, v.TurnID, Approval, tc.ID(), &tc
			it.Result, it.Name = tc.Status() == protocol.ToolCallStatusPendingResultConfirmation, tc.Name()
		case protocol.SessionToolAuthenticationRequest:
			tc := v.ToolCall
			it.Chat, it.Turn, it.Kind, it.ToolCall = v.Chat, v.TurnID, SignIn, tc.ToolCallID
		default:
			continue
		}
		if ch, ok := chatOf(s.Chats, it.Chat); ok {
			if found, waiting := inChat(ch, it.ID(), needsSignIn); found {
				if !waiting {
					continue
				}
				// The card says more than the list: its kind and name.
				fillFromChat(&it, ch, needsSignIn)
			}
		}
		listed[[2]string{it.Chat, it.ID()}] = true
		it.Listed = true
		out = append(out, it)
	}
	// What a subscribed chat shows waiting that inputNeeded does not (yet)
	// list.
	for _, ch := range s.Chats {
		for _, it := range chatWaits(base, ch, needsSignIn) {
			if !listed[[2]string{it.Chat, it.ID()}] {
				listed[[2]string{it.Chat, it.ID()}] = true
				out = append(out, it)
			}
		}
	}
	for i := range out {
		it := &out[i]
		switch it.Kind {
		case Approval:
			it.Answer = command(h, []string{"approve"}, nil, uri, it.ToolCall)
		case Input:
			it.Answer = command(h, []string{"answer"}, nil, uri, it.Request)
		case SignIn:
			resource := ""
			if it.Call != nil {
				if ar, ok := it.Call.Variant.(protocol.ToolCallAuthRequiredState); ok {
					resource = ar.Auth.Resource.Resource
				} else if a, ok := serverAuth(it.Call.McpServer()); ok && a != nil {
					resource = a.Resource.Resource
				}
			}
			signIn(it, resource)
		}
	}
	for _, r := range rows {
		it := base
		it.Server, it.Name = r.ID, r.Name
		switch r.StateKind {
		case "error":
			it.Kind = MCPFailed
			it.Answer = command(h, []string{"mcp", "start"}, []string{"--session", uri}, r.ID)
		case "authRequired":
			it.Kind = SignIn
			resource := ""
			if r.Auth != nil {
				resource = r.Auth.Resource.Resource
			}
			signIn(&it, resource)
		default:
			continue
		}
		out = append(out, it)
	}
	out = append(out, prompts(h, base, s)...)
	for _, ch := range s.Chats {
		if ch.ActiveTurn != nil || len(ch.Turns) == 0 {
			continue
		}
		if t := ch.Turns[len(ch.Turns)-1]; t.State == protocol.TurnStateError {
			it := base
			it.Kind, it.Chat, it.Turn, it.Name = TurnError, ch.Resource, t.ID, turnError(t)
			it.Answer = command(h, []string{"show"}, nil, uri)
			out = append(out, it)
		}
	}
	if len(out) == 0 && inputNeeded && !s.Open {
		it := base
		it.Kind, it.Detail = NeedsInput, s.Detail
		it.Answer = command(h, []string{"show"}, nil, uri)
		out = append(out, it)
	}
	return out
}

// prompts are the agent's sign-ins the host asked for in s.
func prompts(h Host, base Item, s Session) []Item {
	var out []Item
	for _, p := range s.Prompts {
		it := base
		it.Kind, it.Server, it.Name, it.Resource = SignIn, AgentPrefix+p, p, p
		it.Answer = command(h, []string{"auth", "login"}, []string{"--session", base.Session}, p)
		out = append(out, it)
	}
	return out
}

func chatOf(chats []protocol.ChatState, uri string) (protocol.ChatState, bool) {
	for _, c := range chats {
		if c.Resource == uri {
			return c, true
		}
	}
	return protocol.ChatState{}, false
}

// inChat finds the tool call or input request id in ch: found, and
// whether it still waits on the user. The running turn is looked at
// first; a finished turn's part waits on no one (its turn is over).
func inChat(ch protocol.ChatState, id string, needsSignIn func(string) bool) (found, waiting bool) {
	if a := ch.ActiveTurn; a != nil {
		if found, waiting := inParts(a.ResponseParts, id, needsSignIn, true); found {
			return true, waiting
		}
	}
	for i := len(ch.Turns) - 1; i >= 0; i-- {
		if found, _ := inParts(ch.Turns[i].ResponseParts, id, needsSignIn, false); found {
			return true, false
		}
	}
	return false, false
}

func inParts(parts []protocol.ResponsePart, id string, needsSignIn func(string) bool, active bool) (found, waiting bool) {
	for _, p := range parts {
		switch v := p.Variant.(type) {
		case protocol.ToolCallResponsePart:
			if v.ToolCall.ID() == id {
				return true, v.ToolCall.WaitsOnUser(needsSignIn)
			}
		case protocol.InputRequestResponsePart:
			if v.Request.ID == id {
				return true, v.Response == nil && active
			}
		}
	}
	return false, false
}

// fillFromChat makes it what its card in ch says.
func fillFromChat(it *Item, ch protocol.ChatState, needsSignIn func(string) bool) {
	for _, w := range chatWaits(Item{}, ch, needsSignIn) {
		if w.ID() == it.ID() {
			it.Kind, it.Result, it.Name, it.Call, it.Input = w.Kind, w.Result, w.Name, w.Call, w.Input
			it.ToolCall, it.Request = w.ToolCall, w.Request
			if it.Turn == "" {
				it.Turn = w.Turn
			}
			return
		}
	}
}

// chatWaits is what ch shows waiting on the user: the running turn's
// tool calls that wait and its unanswered input requests. Only the
// running turn is read: this runs on every streamed chunk, and a
// finished turn's calls can no longer be answered.
func chatWaits(base Item, ch protocol.ChatState, needsSignIn func(string) bool) []Item {
	t := ch.ActiveTurn
	if t == nil {
		return nil
	}
	var out []Item
	for _, p := range t.ResponseParts {
		it := base
		it.Chat, it.Turn = ch.Resource, t.ID
		switch v := p.Variant.(type) {
		case protocol.ToolCallResponsePart:
			tc := v.ToolCall
			if tc.ID() == "" || !tc.WaitsOnUser(needsSignIn) {
				continue
			}
			it.ToolCall, it.Call, it.Name = tc.ID(), &tc, tc.Name()
			switch tc.Status() {
			case protocol.ToolCallStatusPendingConfirmation:
				it.Kind = Approval
			case protocol.ToolCallStatusPendingResultConfirmation:
				it.Kind, it.Result = Approval, true
			default:
				it.Kind = SignIn
			}
		case protocol.InputRequestResponsePart:
			if v.Response != nil {
				continue
			}
			req := v.Request
			it.Kind, it.Request, it.Input, it.Name = Input, req.ID, &req, deref(req.Message)
		default:
			continue
		}
		out = append(out, it)
	}
	return out
}

// turnError is the message of the error a turn stopped on, if it carries
// one.
func turnError(t protocol.Turn) string {
	for i := len(t.ResponseParts) - 1; i >= 0; i-- {
		if e, ok := t.ResponseParts[i].Variant.(protocol.ErrorResponsePart); ok {
			return e.Error.Message
		}
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// command is the argv of an answer: ahptui, the command's words, the
// host's flags, the command's flags, then its arguments — after "--"
// when one starts with "-", so a host's id is never read as a flag.
func command(h Host, words, flags []string, args ...string) []string {
	argv := append([]string{"ahptui"}, words...)
	argv = append(argv, h.Flags...)
	argv = append(argv, flags...)
	if slices.ContainsFunc(args, func(a string) bool { return len(a) > 0 && a[0] == '-' }) {
		argv = append(argv, "--")
	}
	return append(argv, args...)
}
