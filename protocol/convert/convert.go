package convert

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/internal/wirescan"
)

// ErrNotInVersion is returned (wrapped) by the Down functions for what the
// older version cannot express at all: actions a later release added
// (chat/turnResume to 0.8, session/workingDirectorySet to 0.6, …), a
// side-chat source to 0.6. The caller does not send it; the older
// version's reducer would ignore the action anyway, so the peer's state
// stays what its version can say.
var ErrNotInVersion = errors.New("not expressible in the peer's AHP version")

func isNotInVersion(err error) bool { return errors.Is(err, ErrNotInVersion) }

// ---- 0.6 → 0.7 (DELTA: working directories, side chats, ContentRef tool
// input, optional tool-call delta content, terminal results) ----

var step07 = step{
	to: protocol.Wire07,
	added: set("chat/workingDirectoryRemoved", "chat/workingDirectorySet",
		"session/workingDirectoryRemoved", "session/workingDirectorySet"),
	up: stepTables{
		actions: map[string]actionConv{
			"session/chatAdded":   editMember("summary", summaryDirs(true)),
			"session/chatUpdated": editMember("changes", summaryDirs(true)),
		},
		states: map[string]stateConv{
			"session": objectState(func(o *object) error {
				upWorkingDirectory(o)
				return o.edit("chats", each(summaryDirs(true)))
			}),
			"chat": objectState(func(o *object) error { upWorkingDirectory(o); return nil }),
		},
		params: map[string]conv{
			"root/sessionAdded":          fields(map[string]conv{"summary": summaryDirs(true)}),
			"root/sessionSummaryChanged": fields(map[string]conv{"changes": summaryDirs(true)}),
			"createSession":              summaryDirs(true),
			"createChat":                 upCreateChat,
		},
		results: map[string]conv{
			"listSessions": fields(map[string]conv{"items": each(summaryDirs(true))}),
		},
	},
	down: stepTables{
		actions: map[string]actionConv{
			"session/chatAdded":      editMember("summary", summaryDirs(false)),
			"session/chatUpdated":    editMember("changes", summaryDirs(false)),
			"session/inputNeededSet": editMember("request", fields(map[string]conv{"toolCall": downToolCall})),
			"chat/turnsLoaded":       editMember("turns", each(downTurnParts)),
			"chat/toolCallReady":     func(_ string, o *object) error { dropContentRefInput(o); return nil },
			"chat/toolCallDelta":     downToolCallDelta,
			"chat/responsePart":      editMember("part", downResponsePart),
		},
		states: map[string]stateConv{
			"session": objectState(func(o *object) error {
				downWorkingDirectories(o)
				if err := o.edit("inputNeeded", each(fields(map[string]conv{"toolCall": downToolCall}))); err != nil {
					return err
				}
				return o.edit("chats", each(summaryDirs(false)))
			}),
			"chat": objectState(func(o *object) error {
				downWorkingDirectories(o)
				if err := o.edit("turns", each(downTurnParts)); err != nil {
					return err
				}
				return o.edit("activeTurn", downTurnParts)
			}),
		},
		params: map[string]conv{
			"root/sessionAdded":          fields(map[string]conv{"summary": summaryDirs(false)}),
			"root/sessionSummaryChanged": fields(map[string]conv{"changes": summaryDirs(false)}),
			"createSession":              summaryDirs(false),
			"createChat":                 downCreateChat,
		},
		results: map[string]conv{
			"listSessions": fields(map[string]conv{"items": each(summaryDirs(false))}),
		},
	},
}

// ---- 0.7 → 0.8 (DELTA §6.2 customization enablement, §3.2 auth/required
// metadata) ----

var step08 = step{
	to: protocol.Wire08,
	added: set("session/workingDirectoryReplaced",
		// ACTION_INTRODUCED_IN dates the automation actions 0.8.0 (DELTA §2.1).
		"automation/createRequested", "automation/removed", "automation/set", "automation/updateRequested",
		"automationRun/cancelRequested", "automationRun/lifecycleChanged", "automationRun/primarySessionChanged",
		"automationRun/sessionRemoved", "automationRun/sessionSet"),
	up: stepTables{
		actions: map[string]actionConv{
			"session/customizationToggled":  func(_ string, o *object) error { upToggled(o); return nil },
			"session/customizationsChanged": editMember("customizations", each(upCustomization)),
			"session/customizationUpdated":  editMember("customization", upCustomization),
		},
		states: map[string]stateConv{
			"session": objectState(func(o *object) error { return o.edit("customizations", each(upCustomization)) }),
		},
		// auth/required is left alone going up: the 1.0 decoder reads a
		// string resource as well as the metadata.
	},
	down: stepTables{
		actions: map[string]actionConv{
			"session/customizationToggled":  func(_ string, o *object) error { downToggled(o); return nil },
			"session/customizationsChanged": editMember("customizations", each(downCustomization)),
			"session/customizationUpdated":  editMember("customization", downCustomization),
		},
		states: map[string]stateConv{
			"session": objectState(func(o *object) error { return o.edit("customizations", each(downCustomization)) }),
		},
		params: map[string]conv{
			"auth/required": downAuthRequired,
		},
	},
}

// ---- 0.8 → 0.9 and 1.0 (DELTA: error response parts, lifecycle failed,
// terminal lifecycle and claims, annotation origins; 1.0's recomputing
// changesets, blocking MCP starts, token lifetimes) ----

var step10 = step{
	to: protocol.Wire10,
	added: set("chat/turnResume",
		"session/chatsReordered", "session/mcpServerBackgroundRequested",
		"chat/backgroundWorkSet", "chat/backgroundWorkRemoved", "chat/movableChanged",
		"chat/changesetsChanged", "chat/isReadChanged", "chat/isArchivedChanged",
		"chat/canvasesChanged", "canvas/stateChanged"),
	up: stepTables{
		actions: map[string]actionConv{
			"session/chatAdded":     editMember("summary", summaryLifecycle(true)),
			"session/chatUpdated":   editMember("changes", summaryLifecycle(true)),
			"chat/error":            upChatError,
			"chat/turnsLoaded":      editMember("turns", each(upTurn)),
			"root/terminalsChanged": editMember("terminals", each(upTerminal)),
			"annotations/set": func(ch string, o *object) error {
				return o.edit("annotation", upAnnotation(annotationsSession(ch)))
			},
			"annotations/updated": func(ch string, o *object) error { upAnnotationOrigin(o, annotationsSession(ch)); return nil },
		},
		states: map[string]stateConv{
			"root": plain(fields(map[string]conv{"terminals": each(upTerminal)})),
			"session": objectState(func(o *object) error {
				upLifecycle(o)
				return o.edit("chats", each(summaryLifecycle(true)))
			}),
			"chat":     plain(fields(map[string]conv{"turns": each(upTurn)})),
			"terminal": plain(upTerminal),
			"annotations": func(ch string, raw json.RawMessage) (json.RawMessage, error) {
				return fields(map[string]conv{"annotations": each(upAnnotation(annotationsSession(ch)))})(raw)
			},
		},
		params: map[string]conv{
			"root/sessionAdded":          fields(map[string]conv{"summary": summaryLifecycle(true)}),
			"root/sessionSummaryChanged": fields(map[string]conv{"changes": summaryLifecycle(true)}),
			// A 0.6–0.8 createSession `fork` (removed in 0.9) is kept as an
			// unknown member: 1.0 has no equivalent there (chat forking is
			// createChat's source).
		},
		results: map[string]conv{
			"listSessions": fields(map[string]conv{"items": each(summaryLifecycle(true))}),
		},
	},
	down: stepTables{
		actions: map[string]actionConv{
			"session/chatAdded":             editMember("summary", summaryLifecycle(false)),
			"session/chatUpdated":           editMember("changes", summaryLifecycle(false)),
			"session/mcpServerStateChanged": editMember("state", downMcpServerState),
			"session/customizationsChanged": editMember("customizations", each(downCustomizationState)),
			"session/customizationUpdated":  editMember("customization", downCustomizationState),
			"chat/error":                    downChatError,
			"chat/turnsLoaded":              editMember("turns", each(downTurnErrors(true))),
			"chat/responsePart":             downChatResponsePart,
			"root/terminalsChanged":         editMember("terminals", each(downTerminal)),
			"terminal/claimed":              editMember("claim", downClaim),
			"changeset/statusChanged":       func(_ string, o *object) error { downChangesetStatus(o); return nil },
			"annotations/set":               editMember("annotation", downAnnotation),
			"annotations/updated":           func(_ string, o *object) error { downAnnotationOrigin(o, false); return nil },
		},
		states: map[string]stateConv{
			"root": plain(fields(map[string]conv{"terminals": each(downTerminal)})),
			"session": objectState(func(o *object) error {
				downLifecycle(o)
				if err := o.edit("customizations", each(downCustomizationState)); err != nil {
					return err
				}
				return o.edit("chats", each(summaryLifecycle(false)))
			}),
			"chat": objectState(func(o *object) error {
				if err := o.edit("turns", each(downTurnErrors(true))); err != nil {
					return err
				}
				return o.edit("activeTurn", downTurnErrors(false))
			}),
			"terminal":    plain(downTerminal),
			"changeset":   objectState(func(o *object) error { downChangesetStatus(o); return nil }),
			"annotations": plain(fields(map[string]conv{"annotations": each(downAnnotation)})),
		},
		params: map[string]conv{
			"root/sessionAdded":          fields(map[string]conv{"summary": summaryLifecycle(false)}),
			"root/sessionSummaryChanged": fields(map[string]conv{"changes": summaryLifecycle(false)}),
			"authenticate":               downAuthenticate,
			"createTerminal":             fields(map[string]conv{"claim": downClaim}),
		},
		results: map[string]conv{
			"listSessions": fields(map[string]conv{"items": each(summaryLifecycle(false))}),
		},
	},
}

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

func editMember(key string, f conv) actionConv {
	return func(_ string, o *object) error { return o.edit(key, f) }
}

// objectState is a state conversion that edits the state object.
func objectState(f func(o *object) error) stateConv {
	return func(_ string, raw json.RawMessage) (json.RawMessage, error) { return editObject(raw, f) }
}

// plain is a state conversion that does not need the channel.
func plain(f conv) stateConv {
	return func(_ string, raw json.RawMessage) (json.RawMessage, error) { return f(raw) }
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
// an error part arriving on its own has no spelling before 0.9.
func downChatResponsePart(_ string, o *object) error {
	v, ok := o.get("part")
	if !ok {
		return nil
	}
	if k, _ := discriminator(v, "kind"); string(k) == "error" {
		return fmt.Errorf("%w (AHP 0.8): chat/responsePart with an error part", ErrNotInVersion)
	}
	return nil
}

// downToolCallDelta: 0.7 lets a delta carry no content; 0.6 requires it,
// and an empty string appends nothing.
func downToolCallDelta(_ string, o *object) error {
	if v, ok := o.get("content"); !ok || isNull(v) {
		o.set("content", json.RawMessage(`""`))
	}
	return nil
}

// ---- the API ----

// UpAction converts an action sent on wire from to 1.0. An annotations
// action gets an origin without a session (UpParams, which knows the
// channel, fills it). On 1.0 it is returned as is.
func UpAction(from protocol.Wire, action json.RawMessage) (json.RawMessage, error) {
	p := pathOf(from, false)
	if p == nil {
		return action, nil
	}
	return p.action("", action)
}

// DownAction converts a 1.0 action to wire to; an action a later release
// added gives ErrNotInVersion.
func DownAction(to protocol.Wire, action json.RawMessage) (json.RawMessage, error) {
	p := pathOf(to, true)
	if p == nil {
		return action, nil
	}
	return p.action("", action)
}

// UpState converts a channel state sent on wire from to 1.0; the channel
// URI decides its kind (protocol.ChannelKind). A kind that did not change
// passes as is.
func UpState(from protocol.Wire, channel string, state json.RawMessage) (json.RawMessage, error) {
	p := pathOf(from, false)
	if p == nil {
		return state, nil
	}
	return p.state(channel, state)
}

// DownState converts a 1.0 channel state to wire to.
func DownState(to protocol.Wire, channel string, state json.RawMessage) (json.RawMessage, error) {
	p := pathOf(to, true)
	if p == nil {
		return state, nil
	}
	return p.state(channel, state)
}

// UpParams converts the params of a request or notification sent on wire
// from to 1.0: action envelopes and dispatchAction (their action),
// root/sessionAdded and root/sessionSummaryChanged (the summary),
// createSession, createChat.
func UpParams(from protocol.Wire, method string, params json.RawMessage) (json.RawMessage, error) {
	return pathOf(from, false).convert("params", method, params)
}

// DownParams converts 1.0 params to wire to; ErrNotInVersion when they
// cannot be said there (an action a later release added, a side-chat
// createChat to 0.6).
func DownParams(to protocol.Wire, method string, params json.RawMessage) (json.RawMessage, error) {
	return pathOf(to, true).convert("params", method, params)
}

// UpResult converts a command result sent on wire from to 1.0: the
// snapshots of initialize, subscribe and reconnect, a replay's actions,
// listSessions' summaries.
func UpResult(from protocol.Wire, method string, result json.RawMessage) (json.RawMessage, error) {
	return pathOf(from, false).convert("result", method, result)
}

// DownResult converts a 1.0 command result to wire to. A replay leaves out
// the actions wire to does not define.
func DownResult(to protocol.Wire, method string, result json.RawMessage) (json.RawMessage, error) {
	return pathOf(to, true).convert("result", method, result)
}

// upCreateChat: a source before 0.7 is always a fork (0.7 made `kind`
// required).
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
					return fmt.Errorf("%w (AHP 0.6): createChat source of kind %s", ErrNotInVersion, k)
				}
				s.del("kind")
				return nil
			})
		})
	})
}

// downAuthRequired names the resource by its identifier, the only form a
// peer before 0.8 reads; 0.8 and later send the full
// ProtectedResourceMetadata.
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

// downAuthenticate drops `expiresIn` (1.0): an older host does not read
// it, and a token lifetime is nothing to hand a peer that cannot use it.
func downAuthenticate(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error { o.del("expiresIn"); return nil })
}
