package convert06

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/internal/wirescan"
)

// ErrNot06 is returned (wrapped) by the Down functions for what AHP 0.6
// cannot express at all: 1.0-only actions (chat/turnResume,
// session/mcpServerBackgroundRequested, …), a side-chat source. The caller
// does not send it to a 0.6 peer; a 0.6 reducer would ignore the action
// anyway, so the peer's state stays what 0.6 can say.
var ErrNot06 = errors.New("not expressible in AHP 0.6")

// not06Actions are the action types 1.0 added (0.7 to 1.0). A test checks
// the list against both schemas.
var not06Actions = map[string]bool{
	"automation/createRequested":           true,
	"automation/removed":                   true,
	"automation/set":                       true,
	"automation/updateRequested":           true,
	"automationRun/cancelRequested":        true,
	"automationRun/lifecycleChanged":       true,
	"automationRun/primarySessionChanged":  true,
	"automationRun/sessionRemoved":         true,
	"automationRun/sessionSet":             true,
	"canvas/stateChanged":                  true,
	"chat/backgroundWorkRemoved":           true,
	"chat/backgroundWorkSet":               true,
	"chat/canvasesChanged":                 true,
	"chat/changesetsChanged":               true,
	"chat/isArchivedChanged":               true,
	"chat/isReadChanged":                   true,
	"chat/movableChanged":                  true,
	"chat/turnResume":                      true,
	"chat/workingDirectoryRemoved":         true,
	"chat/workingDirectorySet":             true,
	"session/chatsReordered":               true,
	"session/mcpServerBackgroundRequested": true,
	"session/workingDirectoryRemoved":      true,
	"session/workingDirectoryReplaced":     true,
	"session/workingDirectorySet":          true,
}

// actionConv converts one action object; channel is the channel it is
// applied on ("" when unknown).
type actionConv func(channel string, o *object) error

// upActions and downActions hold the action types whose shape differs.
// Every other type (the streaming chat/delta and chat/reasoning among
// them) passes through untouched and unread past its "type".
var upActions = map[string]actionConv{
	"session/customizationToggled":  func(_ string, o *object) error { upToggled(o); return nil },
	"session/customizationsChanged": editMember("customizations", each(upCustomization)),
	"session/customizationUpdated":  editMember("customization", upCustomization),
	"session/chatAdded":             editMember("summary", upSummary),
	"session/chatUpdated":           editMember("changes", upSummary),
	"chat/error":                    upChatError,
	"chat/turnsLoaded":              editMember("turns", each(upTurn)),
	"root/terminalsChanged":         editMember("terminals", each(upTerminal)),
	"annotations/set":               func(ch string, o *object) error { return o.edit("annotation", upAnnotation(annotationsSession(ch))) },
	"annotations/updated":           func(ch string, o *object) error { upAnnotationOrigin(o, annotationsSession(ch)); return nil },
}

var downActions = map[string]actionConv{
	"session/customizationToggled":  func(_ string, o *object) error { downToggled(o); return nil },
	"session/customizationsChanged": editMember("customizations", each(downCustomization)),
	"session/customizationUpdated":  editMember("customization", downCustomization),
	"session/mcpServerStateChanged": editMember("state", downMcpServerState),
	"session/chatAdded":             editMember("summary", downSummary),
	"session/chatUpdated":           editMember("changes", downSummary),
	"session/inputNeededSet":        editMember("request", fields(map[string]conv{"toolCall": downToolCall})),
	"chat/error":                    downChatError,
	"chat/turnsLoaded":              editMember("turns", each(downTurn(true))),
	"chat/toolCallReady":            func(_ string, o *object) error { dropContentRefInput(o); return nil },
	"chat/toolCallDelta":            downToolCallDelta,
	"chat/responsePart":             downChatResponsePart,
	"root/terminalsChanged":         editMember("terminals", each(downTerminal)),
	"terminal/claimed":              editMember("claim", downClaim),
	"changeset/statusChanged":       func(_ string, o *object) error { downChangesetStatus(o); return nil },
	"annotations/set":               editMember("annotation", downAnnotation),
	"annotations/updated":           func(_ string, o *object) error { downAnnotationOrigin(o, false); return nil },
}

func editMember(key string, f conv) actionConv {
	return func(_ string, o *object) error { return o.edit(key, f) }
}

func upChatError(_ string, o *object) error {
	if v, ok := o.get("error"); ok {
		o.rename("error", "part", errorPart(v))
	}
	return nil
}

func downChatError(_ string, o *object) error {
	v, ok := o.get("part")
	if !ok {
		return nil
	}
	var out [1]json.RawMessage
	if wirescan.ScanMembers(v, out[:], "error") && out[0] != nil {
		o.rename("part", "error", out[0])
	}
	return nil
}

// downChatResponsePart: a 1.0 host reports a turn's error with chat/error;
// an error part arriving on its own has no 0.6 spelling.
func downChatResponsePart(_ string, o *object) error {
	v, ok := o.get("part")
	if !ok {
		return nil
	}
	if k, _ := discriminator(v, "kind"); string(k) == "error" {
		return fmt.Errorf("%w: chat/responsePart with an error part", ErrNot06)
	}
	return o.edit("part", downResponsePart)
}

// downToolCallDelta: 1.0 lets a delta carry no content (0.7); 0.6
// requires it, and an empty string appends nothing.
func downToolCallDelta(_ string, o *object) error {
	if v, ok := o.get("content"); !ok || isNull(v) {
		o.set("content", json.RawMessage(`""`))
	}
	return nil
}

// convertAction converts action with table; the type is read without
// allocating, and an action whose type is not in the table is returned as
// is without further reading.
func convertAction(table map[string]actionConv, channel string, action json.RawMessage, down bool) (json.RawMessage, error) {
	typ, ok := discriminator(action, "type")
	if !ok {
		return action, nil // not an action; the decoder after us says so
	}
	f, ok := table[string(typ)]
	if !ok {
		if down && not06Actions[string(typ)] {
			return nil, fmt.Errorf("%w: action %q", ErrNot06, typ)
		}
		return action, nil
	}
	if !json.Valid(action) {
		return nil, fmt.Errorf("convert action %q: not valid JSON", typ)
	}
	out, err := editObject(action, func(o *object) error { return f(channel, o) })
	if err != nil {
		return nil, fmt.Errorf("convert action %q: %w", typ, err)
	}
	return out, nil
}

// UpAction converts a 0.6 action to 1.0. An annotations action gets an
// origin without a session (UpParams, which knows the channel, fills it).
func UpAction(action json.RawMessage) (json.RawMessage, error) {
	return convertAction(upActions, "", action, false)
}

// DownAction converts a 1.0 action to 0.6; a 1.0-only action gives
// ErrNot06.
func DownAction(action json.RawMessage) (json.RawMessage, error) {
	return convertAction(downActions, "", action, true)
}

// ---- states ----

// stateConvs holds each channel kind's state conversion, up and down;
// kinds not listed (changeset, resource watch) did not change. An
// annotations state also needs its channel (stateConv).
var stateConvs = map[string]struct{ up, down conv }{
	"root":     {fields(map[string]conv{"terminals": each(upTerminal)}), fields(map[string]conv{"terminals": each(downTerminal)})},
	"session":  {upSession, downSession},
	"chat":     {upChat, downChat},
	"terminal": {upTerminal, downTerminal},
	"changeset": {nil, func(raw json.RawMessage) (json.RawMessage, error) {
		return editObject(raw, func(o *object) error { downChangesetStatus(o); return nil })
	}},
}

func stateConv(kind string, channel string, down bool) conv {
	if kind == "annotations" {
		if down {
			return fields(map[string]conv{"annotations": each(downAnnotation)})
		}
		return fields(map[string]conv{"annotations": each(upAnnotation(annotationsSession(channel)))})
	}
	c := stateConvs[kind]
	if down {
		return c.down
	}
	return c.up
}

func upSession(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		upWorkingDirectory(o)
		upLifecycle(o)
		if err := o.edit("customizations", each(upCustomization)); err != nil {
			return err
		}
		return o.edit("chats", each(upSummary))
	})
}

func downSession(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		downWorkingDirectories(o)
		downLifecycle(o)
		if err := o.edit("customizations", each(downCustomization)); err != nil {
			return err
		}
		if err := o.edit("inputNeeded", each(fields(map[string]conv{"toolCall": downToolCall}))); err != nil {
			return err
		}
		return o.edit("chats", each(downSummary))
	})
}

func upChat(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		upWorkingDirectory(o)
		return o.edit("turns", each(upTurn))
	})
}

func downChat(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		downWorkingDirectories(o)
		if err := o.edit("turns", each(downTurn(true))); err != nil {
			return err
		}
		return o.edit("activeTurn", downTurn(false))
	})
}

func convertState(channel string, state json.RawMessage, down bool) (json.RawMessage, error) {
	kind := protocol.ChannelKind(channel)
	f := stateConv(kind, channel, down)
	if f == nil {
		return state, nil
	}
	if !json.Valid(state) {
		return nil, fmt.Errorf("convert %s state: not valid JSON", kind)
	}
	out, err := f(state)
	if err != nil {
		return nil, fmt.Errorf("convert %s state: %w", kind, err)
	}
	return out, nil
}

// UpState converts a 0.6 channel state to 1.0; the channel URI decides its
// kind (protocol.ChannelKind). A kind that did not change passes as is.
func UpState(channel string, state json.RawMessage) (json.RawMessage, error) {
	return convertState(channel, state, false)
}

// DownState converts a 1.0 channel state to 0.6.
func DownState(channel string, state json.RawMessage) (json.RawMessage, error) {
	return convertState(channel, state, true)
}

// ---- params and results ----

// envelope converts the action inside an ActionEnvelope or dispatchAction
// params, with the envelope's channel.
func envelope(down bool) conv {
	table := upActions
	if down {
		table = downActions
	}
	return func(raw json.RawMessage) (json.RawMessage, error) {
		var out [2]json.RawMessage
		if !wirescan.ScanMembers(raw, out[:], "channel", "action") || out[1] == nil {
			return raw, nil
		}
		// Only an action that changes (or is refused) needs the channel;
		// the streaming ones return here without allocating.
		typ, ok := discriminator(out[1], "type")
		if !ok {
			return raw, nil
		}
		if _, ok := table[string(typ)]; !ok && !(down && not06Actions[string(typ)]) {
			return raw, nil
		}
		channel, _ := wirescan.JSONString(out[0])
		action, err := convertAction(table, channel, out[1], down)
		if err != nil || same(action, out[1]) {
			return raw, err
		}
		return editObject(raw, func(o *object) error {
			o.set("action", action)
			return nil
		})
	}
}

// snapshot converts a Snapshot's state by its resource.
func snapshot(down bool) conv {
	return func(raw json.RawMessage) (json.RawMessage, error) {
		var out [1]json.RawMessage
		if !wirescan.ScanMembers(raw, out[:], "resource") {
			return raw, nil
		}
		resource, _ := wirescan.JSONString(out[0])
		return fields(map[string]conv{"state": func(st json.RawMessage) (json.RawMessage, error) {
			return convertState(resource, st, down)
		}})(raw)
	}
}

var upParams = map[string]conv{
	"action":                     envelope(false),
	"dispatchAction":             envelope(false),
	"root/sessionAdded":          fields(map[string]conv{"summary": upSummary}),
	"root/sessionSummaryChanged": fields(map[string]conv{"changes": upSummary}),
	"createSession":              upCreateSession,
	"createChat":                 upCreateChat,
}

var downParams = map[string]conv{
	"action":                     envelope(true),
	"dispatchAction":             envelope(true),
	"root/sessionAdded":          fields(map[string]conv{"summary": downSummary}),
	"root/sessionSummaryChanged": fields(map[string]conv{"changes": downSummary}),
	"createSession":              downCreateSession,
	"createChat":                 downCreateChat,
	"authenticate":               downAuthenticate,
	"createTerminal":             fields(map[string]conv{"claim": downClaim}),
	"auth/required":              downAuthRequired,
}

// upCreateSession moves the working directory into the list. A 0.6 `fork`
// (session forking, removed in 0.9) is kept as an unknown member: 1.0 has
// no equivalent on createSession (chat forking is createChat's source).
func upCreateSession(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error { upWorkingDirectory(o); return nil })
}

func downCreateSession(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error { downWorkingDirectories(o); return nil })
}

// upCreateChat: a 0.6 source is always a fork (0.7 made `kind` required).
func upCreateChat(raw json.RawMessage) (json.RawMessage, error) {
	return fields(map[string]conv{"source": func(src json.RawMessage) (json.RawMessage, error) {
		return editObject(src, func(o *object) error {
			if _, ok := o.get("kind"); !ok {
				o.members = append([]member{{rawKey: []byte("kind"), key: "kind", val: json.RawMessage(`"fork"`)}}, o.members...)
				o.dirty = true
			}
			return nil
		})
	}})(raw)
}

// downCreateChat drops the fork's `kind`; a side chat (0.7) cannot be
// asked of a 0.6 host. Per-chat working directories are dropped: the chat
// inherits the session's, the 0.6 behaviour.
func downCreateChat(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		o.del("workingDirectories")
		return o.edit("source", func(src json.RawMessage) (json.RawMessage, error) {
			return editObject(src, func(s *object) error {
				k, ok := s.get("kind")
				if !ok {
					return nil
				}
				if string(k) != `"fork"` {
					return fmt.Errorf("%w: createChat source of kind %s", ErrNot06, k)
				}
				s.del("kind")
				return nil
			})
		})
	})
}

// downAuthRequired names the resource by its identifier, the only form a
// 0.6 peer reads; 1.0 hosts send the full ProtectedResourceMetadata (0.8).
func downAuthRequired(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		v, ok := o.get("resource")
		if !ok || !isObject(v) {
			return nil
		}
		var out [1]json.RawMessage
		if wirescan.ScanMembers(v, out[:], "resource") && out[0] != nil {
			o.set("resource", out[0])
		}
		return nil
	})
}

// downAuthenticate drops `expiresIn`: a 0.6 host does not read it, and a
// token lifetime is nothing to hand a peer that cannot use it.
func downAuthenticate(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error { o.del("expiresIn"); return nil })
}

var upResults = map[string]conv{
	"initialize":   fields(map[string]conv{"snapshots": each(snapshot(false))}),
	"subscribe":    fields(map[string]conv{"snapshot": snapshot(false)}),
	"reconnect":    fields(map[string]conv{"snapshots": each(snapshot(false)), "actions": each(envelope(false))}),
	"listSessions": fields(map[string]conv{"items": each(upSummary)}),
}

var downResults = map[string]conv{
	"initialize":   fields(map[string]conv{"snapshots": each(snapshot(true))}),
	"subscribe":    fields(map[string]conv{"snapshot": snapshot(true)}),
	"reconnect":    fields(map[string]conv{"snapshots": each(snapshot(true)), "actions": downReplay}),
	"listSessions": fields(map[string]conv{"items": each(downSummary)}),
}

// downReplay converts a reconnect replay's envelopes and leaves out the
// 1.0-only actions: a 0.6 reducer would ignore them, and a gap in serverSeq
// is what a 0.6 client sees when a host filters per version.
var downReplay = each(func(raw json.RawMessage) (json.RawMessage, error) {
	out, err := envelope(true)(raw)
	if errors.Is(err, ErrNot06) {
		return nil, errLeaveOut
	}
	return out, err
})

func convertWith(table map[string]conv, what, method string, raw json.RawMessage) (json.RawMessage, error) {
	f, ok := table[method]
	if !ok || len(raw) == 0 {
		return raw, nil
	}
	out, err := f(raw)
	if err != nil {
		return nil, fmt.Errorf("convert %s %s: %w", method, what, err)
	}
	if !same(out, raw) && !json.Valid(raw) {
		return nil, fmt.Errorf("convert %s %s: not valid JSON", method, what)
	}
	return out, nil
}

// UpParams converts the params of a 0.6 request or notification to 1.0:
// action envelopes and dispatchAction (their action), root/sessionAdded
// and root/sessionSummaryChanged (the summary), createSession, createChat.
// auth/required is left alone: 1.0 decoders read its string resource.
func UpParams(method string, params json.RawMessage) (json.RawMessage, error) {
	return convertWith(upParams, "params", method, params)
}

// DownParams converts 1.0 params to 0.6; ErrNot06 when they cannot be said
// (a 1.0-only action, a side-chat createChat).
func DownParams(method string, params json.RawMessage) (json.RawMessage, error) {
	return convertWith(downParams, "params", method, params)
}

// UpResult converts a 0.6 command result to 1.0: the snapshots of
// initialize, subscribe and reconnect, a replay's actions, listSessions'
// summaries.
func UpResult(method string, result json.RawMessage) (json.RawMessage, error) {
	return convertWith(upResults, "result", method, result)
}

// DownResult converts a 1.0 command result to 0.6.
func DownResult(method string, result json.RawMessage) (json.RawMessage, error) {
	return convertWith(downResults, "result", method, result)
}
