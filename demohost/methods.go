package demohost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// rpcError is what a method handler returns instead of a result.
type rpcError = *jsonrpc.Error

func invalidParams(format string, args ...any) rpcError {
	return jsonrpc.NewError(jsonrpc.InvalidParams, fmt.Sprintf(format, args...))
}

// handleRequest answers one request or consumes one notification.
func (h *Host) handleRequest(c *conn, req *jsonrpc.Request) {
	if req.Method == "authenticate" && req.ID != nil {
		// Introspection talks to the token store: keep it outside h.mu.
		res, err := h.authenticate(c, req.Params)
		h.mu.Lock()
		c.respondLocked(h.response(req.Method, req.ID, res, err))
		h.mu.Unlock()
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if req.IsNotification() {
		switch req.Method {
		case "dispatchAction":
			if c.initialized {
				h.dispatchLocked(c, req.Params)
			}
		case "unsubscribe":
			var p protocol.UnsubscribeParams
			if json.Unmarshal(req.Params, &p) == nil {
				delete(c.subs, p.Channel)
			}
		}
		return // unknown notifications are ignored, as JSON-RPC requires
	}
	var res any
	var err rpcError
	switch req.Method {
	case "ping":
		res = struct{}{}
	case "initialize":
		res, err = h.initializeLocked(c, req.Params)
	case "reconnect":
		res, err = h.reconnectLocked(c, req.Params)
	default:
		if !c.initialized {
			if isKnownMethod(req.Method) {
				err = jsonrpc.NewError(jsonrpc.InvalidRequest, "send initialize (or reconnect) before "+req.Method)
			} else {
				err = jsonrpc.NewError(jsonrpc.MethodNotFound, "method not found: "+clip(req.Method))
			}
			break
		}
		switch req.Method {
		case "subscribe":
			res, err = h.subscribeLocked(c, req.Params)
		case "listSessions":
			res, err = h.listSessionsLocked(req.Params)
		case "createSession":
			res, err = h.createSessionCmdLocked(c, req.Params)
		case "disposeSession":
			res, err = h.disposeSessionCmdLocked(req.Params)
		case "createChat":
			res, err = h.createChatLocked(c, req.Params)
		case "fetchTurns":
			res, err = h.fetchTurnsLocked(req.Params)
		case "resolveSessionConfig":
			res, err = h.resolveSessionConfigLocked(req.Params)
		case "sessionConfigCompletions":
			res, err = h.sessionConfigCompletionsLocked(req.Params)
		case "resourceRead":
			res, err = h.resourceReadLocked(req.Params)
		case "invokeChangesetOperation":
			res, err = h.invokeChangesetOperationLocked(req.Params)
		case "dispatchAction":
			// Sent as a request by mistake: apply it and acknowledge.
			h.dispatchLocked(c, req.Params)
			res = struct{}{}
		default:
			err = jsonrpc.NewError(jsonrpc.MethodNotFound, "method not found: "+clip(req.Method))
		}
	}
	c.respondLocked(h.response(req.Method, req.ID, res, err))
}

func isKnownMethod(m string) bool {
	switch m {
	case "subscribe", "listSessions", "createSession", "disposeSession", "createChat", "fetchTurns", "authenticate", "dispatchAction",
		"resolveSessionConfig", "sessionConfigCompletions", "resourceRead", "invokeChangesetOperation":
		return true
	}
	return false
}

func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// decodeParams decodes params strictly enough to turn type errors into
// InvalidParams; absent params decode as {}.
func decodeParams(raw json.RawMessage, v any) rpcError {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	if raw[0] != '{' {
		return invalidParams("params must be an object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidParams("params do not match the method's schema: %v", errorText(err))
	}
	return nil
}

func (h *Host) initializeLocked(c *conn, raw json.RawMessage) (any, rpcError) {
	if c.initialized {
		return nil, jsonrpc.NewError(jsonrpc.InvalidRequest, "this connection is already initialized")
	}
	var p protocol.InitializeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.ClientID == "" || len(p.ProtocolVersions) == 0 {
		return nil, invalidParams("initialize needs a clientId and at least one protocol version")
	}
	// The spec's rule: the highest offered version inside our ranges,
	// whatever the order; a malformed entry makes the whole offer invalid.
	chosen, ok, err := protocol.NegotiateProtocolVersion(p.ProtocolVersions, h.wire.ranges)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	if !ok {
		return nil, jsonrpc.NewErrorData(jsonrpc.UnsupportedProtocolVersion,
			"the demo host accepts AHP "+strings.Join(h.wire.supported, ", ")+"; offer "+h.wire.version,
			protocol.UnsupportedProtocolVersionErrorData{SupportedVersions: slices.Clone(h.wire.supported)})
	}
	c.clientID = p.ClientID
	c.initialized = true
	h.served[p.ClientID] = true
	snaps := []protocol.Snapshot{}
	for _, uri := range p.InitialSubscriptions {
		if snap, ok := h.snapshotLocked(uri); ok {
			c.subs[uri] = true
			snaps = append(snaps, snap)
		}
	}
	name, ver := "ahptui-demohost", h.wire.version
	return protocol.InitializeResult{ProtocolVersion: chosen, ServerSeq: h.seq,
		ServerInfo: &protocol.Implementation{Name: name, Version: &ver}, Snapshots: snaps}, nil
}

func (h *Host) reconnectLocked(c *conn, raw json.RawMessage) (any, rpcError) {
	if c.initialized {
		return nil, jsonrpc.NewError(jsonrpc.InvalidRequest, "this connection is already initialized")
	}
	var p protocol.ReconnectParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.ClientID == "" {
		return nil, invalidParams("reconnect needs the clientId of the original connection")
	}
	c.clientID = p.ClientID
	c.initialized = true

	missing := []string{}
	live := map[string]bool{}
	for _, uri := range p.Subscriptions {
		if h.channelExists(uri) {
			live[uri] = true
			c.subs[uri] = true
		} else if !slices.Contains(missing, uri) {
			missing = append(missing, uri)
		}
	}
	known := h.served[p.ClientID]
	h.served[p.ClientID] = true
	if known && h.canReplayLocked(p.LastSeenServerSeq) {
		actions := []json.RawMessage{}
		for i := range h.replay.len() {
			if e := h.replay.at(i); e.seq > p.LastSeenServerSeq && live[e.channel] && !e.notForPeer && (e.origin == "" || e.origin == p.ClientID) {
				actions = append(actions, e.params)
			}
		}
		return struct {
			Type    string            `json:"type"`
			Actions []json.RawMessage `json:"actions"`
			Missing []string          `json:"missing"`
		}{"replay", actions, missing}, nil
	}
	snaps := []protocol.Snapshot{}
	for _, uri := range p.Subscriptions {
		if live[uri] {
			snap, _ := h.snapshotLocked(uri)
			snaps = append(snaps, snap)
			delete(live, uri)
		}
	}
	return protocol.ReconnectSnapshotResult{Snapshots: snaps}, nil
}

// canReplayLocked reports whether every envelope after lastSeen is still in
// the buffer (and was produced by this incarnation of the host).
func (h *Host) canReplayLocked(lastSeen int64) bool {
	if lastSeen < h.replayFloor || lastSeen > h.seq || lastSeen < 0 {
		return false
	}
	if lastSeen == h.seq {
		return true
	}
	return h.replay.len() > 0 && h.replay.at(0).seq <= lastSeen+1
}

func (h *Host) subscribeLocked(c *conn, raw json.RawMessage) (any, rpcError) {
	var p protocol.SubscribeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Channel == "" {
		return nil, invalidParams("subscribe needs a channel")
	}
	snap, ok := h.snapshotLocked(p.Channel)
	if !ok {
		if strings.HasPrefix(p.Channel, "ahp-session:") {
			return nil, jsonrpc.NewError(jsonrpc.SessionNotFound, "no session "+clip(p.Channel)+"; list sessions or create it first")
		}
		return nil, jsonrpc.NewError(jsonrpc.NotFound, "the demo host has no channel "+clip(p.Channel))
	}
	c.subs[p.Channel] = true
	return protocol.SubscribeResult{Snapshot: &snap}, nil
}

func (h *Host) listSessionsLocked(raw json.RawMessage) (any, rpcError) {
	var p protocol.ListSessionsParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	all := h.sortedSummariesLocked()
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(strings.TrimPrefix(*p.Cursor, "offset:"))
		if !strings.HasPrefix(*p.Cursor, "offset:") || err != nil || n < 0 || n > len(all) {
			return nil, invalidParams("unknown listSessions cursor; start again without one")
		}
		start = n
	}
	end := len(all)
	if p.Limit != nil {
		if *p.Limit <= 0 {
			return nil, invalidParams("limit must be positive")
		}
		if start+int(*p.Limit) < end {
			end = start + int(*p.Limit)
		}
	}
	res := protocol.ListSessionsResult{Items: all[start:end]}
	if end < len(all) {
		cur := "offset:" + strconv.Itoa(end)
		res.NextCursor = &cur
	}
	return res, nil
}

func (h *Host) createSessionCmdLocked(c *conn, raw json.RawMessage) (any, rpcError) {
	var p protocol.CreateSessionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(p.Channel, "ahp-session:/") || len(p.Channel) <= len("ahp-session:/") {
		return nil, invalidParams("createSession needs a channel of the form ahp-session:/<id>")
	}
	if p.Provider != nil && *p.Provider != Provider {
		return nil, jsonrpc.NewError(jsonrpc.ProviderNotFound, "the demo host only has the "+Provider+" agent")
	}
	if err := h.agentAuthErrorLocked(c); err != nil {
		return nil, err
	}
	if h.sessions[p.Channel] != nil {
		return nil, jsonrpc.NewError(jsonrpc.SessionAlreadyExists, "a session "+clip(p.Channel)+" already exists; pick a new URI")
	}
	if h.chats[defaultChatURI(p.Channel)] != nil {
		return nil, jsonrpc.NewError(jsonrpc.SessionAlreadyExists, "that session id is taken; pick a new URI")
	}
	// The demo agent does not advertise multipleWorkingDirectories, so, as
	// the spec says of such a host, the first entry is the session's
	// working directory and the rest are ignored.
	dir := ""
	if len(p.WorkingDirectories) > 0 {
		dir = p.WorkingDirectories[0]
		if dir == "" {
			return nil, invalidParams("workingDirectories[0] is empty; give a URI or leave the list out")
		}
	}
	values, err := resolveConfig(p.Config)
	if err != nil {
		return nil, err
	}
	s := h.createSessionLocked(p.Channel, "New session", dir, false)
	s.state.Config.Values = values
	if p.ActiveClient != nil && p.ActiveClient.ClientID == c.clientID {
		h.applyLocked(s.uri, protocol.SessionActiveClientSetAction{ActiveClient: *p.ActiveClient}, nil)
	}
	return nil, nil
}

func (h *Host) disposeSessionCmdLocked(raw json.RawMessage) (any, rpcError) {
	var p protocol.DisposeSessionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s := h.sessions[p.Channel]
	if s == nil {
		return nil, jsonrpc.NewError(jsonrpc.SessionNotFound, "no session "+clip(p.Channel))
	}
	h.disposeSessionLocked(s)
	return nil, nil
}

func (h *Host) createChatLocked(c *conn, raw json.RawMessage) (any, rpcError) {
	var p protocol.CreateChatParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s := h.sessions[p.Channel]
	if s == nil {
		return nil, jsonrpc.NewError(jsonrpc.SessionNotFound, "no session "+clip(p.Channel))
	}
	// As VS Code's agent host, which answers anything else with
	// "Malformed AHP chat URI": a client learns the shape from the
	// session's default chat.
	if _, ok := chatIDIn(p.Chat, p.Channel); !ok {
		return nil, invalidParams("createChat needs a chat URI of the form ahp-chat://<chat id>/<the session URI in unpadded base64url>, as the session's default chat %s", clip(defaultChatURI(s.uri)))
	}
	if h.chats[p.Chat] != nil {
		return nil, jsonrpc.NewError(jsonrpc.AlreadyExists, "a chat "+clip(p.Chat)+" already exists; pick a new URI")
	}
	// Refuse before anything is created: an error after session/chatAdded
	// would leave a chat every subscriber sees but the caller thinks failed.
	if p.InitialMessage != nil && p.InitialMessage.Origin.Kind != protocol.MessageKindUser {
		return nil, invalidParams("initialMessage must come from the user")
	}
	for _, d := range p.WorkingDirectories {
		if !slices.Contains(s.state.WorkingDirectories, d) {
			return nil, invalidParams("working directory %q is not one of the session's", clip(d))
		}
	}
	origin := protocol.ChatOrigin{Variant: protocol.ChatUserOrigin{}}
	turns := []protocol.Turn{}
	title := fmt.Sprintf("Chat %d", len(s.chats)+1)
	if p.Source != nil {
		f, err := h.forkLocked(s, *p.Source)
		if err != nil {
			return nil, err
		}
		origin.Variant, turns, title = f.origin, f.turns, f.title
	}
	ch := &chat{uri: p.Chat, session: s.uri, state: protocol.ChatState{
		Resource: p.Chat, Title: title, Status: protocol.SessionStatusIdle,
		ModifiedAt: h.now(), Origin: &origin, Turns: turns, WorkingDirectories: p.WorkingDirectories,
	}}
	h.chats[p.Chat] = ch
	s.chats = append(s.chats, p.Chat)
	h.applyLocked(s.uri, protocol.SessionChatAddedAction{Summary: chatSummary(ch.state)}, nil)
	if p.InitialMessage != nil {
		h.startTurnLocked(ch, *p.InitialMessage, nil, nil, c.clientID)
	}
	return nil, nil
}

type fork struct {
	origin protocol.ChatOriginVariant
	turns  []protocol.Turn
	title  string
}

// forkLocked reads a createChat source (0.7+: its kind is required, and a
// 0.6 client's source arrives as a fork from the 0.6 conversion). A fork
// copies the source chat's turns through the named completed turn; a side
// chat (1.0 wire only, where the agent advertises them) starts empty,
// pointing at the named turn, finished or running.
func (h *Host) forkLocked(s *session, src protocol.ChatSource) (fork, rpcError) {
	switch v := src.Variant.(type) {
	case protocol.ForkChatSource:
		from, err := h.sourceChatLocked(s, v.Chat)
		if err != nil {
			return fork{}, err
		}
		i := slices.IndexFunc(from.state.Turns, func(t protocol.Turn) bool { return t.ID == v.TurnID })
		if i < 0 {
			return fork{}, invalidParams("turn %q is not a completed turn of %q; forks start from a completed turn", clip(v.TurnID), clip(v.Chat))
		}
		return fork{
			origin: protocol.ChatForkOrigin{Chat: v.Chat, TurnID: v.TurnID},
			// A new backing array: appending a turn to one chat must never
			// write into the other's.
			turns: slices.Clone(from.state.Turns[:i+1]),
			title: "Fork of " + from.state.Title,
		}, nil
	case protocol.SideChatSource:
		if h.wire.older() {
			return fork{}, invalidParams("the demo agent makes side chats on the 1.0 wire only (capabilities.multipleChats.sideChat is unset); fork instead")
		}
		from, err := h.sourceChatLocked(s, v.Chat)
		if err != nil {
			return fork{}, err
		}
		active := from.state.ActiveTurn != nil && from.state.ActiveTurn.ID == v.TurnID
		if !active && !slices.ContainsFunc(from.state.Turns, func(t protocol.Turn) bool { return t.ID == v.TurnID }) {
			return fork{}, invalidParams("turn %q is not a turn of %q", clip(v.TurnID), clip(v.Chat))
		}
		if v.Selection != nil && v.Selection.Text == "" {
			return fork{}, invalidParams("a side chat's selection needs its text")
		}
		// The source transcript is context, not history: the side chat
		// starts with no turns of its own.
		return fork{
			origin: protocol.ChatSideChatOrigin{Chat: v.Chat, TurnID: v.TurnID, Selection: v.Selection},
			turns:  []protocol.Turn{},
			title:  "Side chat on " + from.state.Title,
		}, nil
	}
	return fork{}, invalidParams("createChat source needs kind \"fork\" or \"sideChat\"")
}

// sourceChatLocked is a createChat source's chat, which must be s's.
func (h *Host) sourceChatLocked(s *session, uri protocol.URI) (*chat, rpcError) {
	from := h.chats[uri]
	if from == nil || from.session != s.uri {
		return nil, invalidParams("source chat %q is not a chat of this session", clip(uri))
	}
	return from, nil
}

func (h *Host) fetchTurnsLocked(raw json.RawMessage) (any, rpcError) {
	var p protocol.FetchTurnsParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if h.chats[p.Channel] == nil {
		return nil, jsonrpc.NewError(jsonrpc.NotFound, "no chat "+clip(p.Channel))
	}
	if p.Cursor != nil {
		// Snapshots always carry every turn, so no cursor was ever issued.
		return nil, invalidParams("unknown fetchTurns cursor: this chat has no older turns")
	}
	return protocol.FetchTurnsResult{}, nil
}
