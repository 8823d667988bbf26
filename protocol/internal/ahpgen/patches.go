package main

import (
	"encoding/json"
	"fmt"
)

// This file holds everything the published 0.6.0 schemas get wrong or leave
// out (patches10.go does the same for 1.0). The schemas are generated from TypeScript and lose information in a
// few places; each patch below says which, so the next spec version can drop
// the ones it fixes.

// overrides maps "Def.property" to a hand-chosen Go type. nilable means the
// type's zero value already means "absent" (slices, maps, raw JSON), so an
// optional field stays a plain value with omitzero instead of a pointer.
type override struct {
	goType  string
	nilable bool
}

var overrides = map[string]override{
	// Streaming targets: chat/delta and chat/reasoning append to these, so
	// they use the append-friendly immutable Text (text.go).
	"MarkdownResponsePart.content":  {goType: "Text"},
	"ReasoningResponsePart.content": {goType: "Text"},

	// TypeScript `{ items: readonly T[] }` wrappers come out of the schema
	// generator as `{ items: string }`; the element types are from the spec.
	"ResourceWatchState.excludes":            {goType: "ItemList[string]"},
	"ResourceWatchState.includes":            {goType: "ItemList[string]"},
	"CreateResourceWatchParams.excludes":     {goType: "ItemList[string]"},
	"CreateResourceWatchParams.includes":     {goType: "ItemList[string]"},
	"ToolCallPendingConfirmationState.edits": {goType: "ItemList[FileEdit]"},
	"ChatToolCallReadyAction.edits":          {goType: "ItemList[FileEdit]"},
	"ResourceWatchChangedAction.changes":     {goType: "ItemList[ResourceChange]"},

	// JSON Schema documents (MCP Tool.inputSchema) and MCP capability objects
	// are flattened to `{ properties: string }` by the schema generator; keep
	// them as opaque JSON.
	"ToolDefinition.inputSchema":        {goType: "json.RawMessage", nilable: true},
	"ToolDefinition.outputSchema":       {goType: "json.RawMessage", nilable: true},
	"AhpMcpUiHostCapabilities.sampling": {goType: "json.RawMessage", nilable: true},

	// A snapshot's state is one of the channel states, told apart only by the
	// channel URI in the sibling `resource` field (see union.go).
	"Snapshot.state": {goType: "json.RawMessage", nilable: true},
}

// inlineNames names inline object types that are a TypeScript
// `Partial<T>` of a named type; the rest are named <Def><Property>.
var inlineNames = map[string]string{
	"SessionSummaryChangedParams.changes": "PartialSessionSummary",
	"SessionChatUpdatedAction.changes":    "PartialChatSummary",
}

// floatProps are the `number` properties that may carry fractions. Every
// other `number` is a count, sequence number, offset or timestamp and
// becomes int64, so large values round-trip exactly.
var floatProps = map[string]bool{
	"ChatInputNumberQuestion.min":                true,
	"ChatInputNumberQuestion.max":                true,
	"ChatInputNumberQuestion.defaultValue":       true,
	"ChatInputNumberAnswerValue.value":           true,
	"ToolCallRiskAssessmentCompleteState.safety": true,
	"ProgressParams.progress":                    true,
	"ProgressParams.total":                       true,
	"Turn.duration":                              true,
	"ChatTurnCompleteAction.duration":            true,
	"ChatTurnCancelledAction.duration":           true,
	"ChatErrorAction.duration":                   true,
	"TerminalCommandPart.durationMs":             true,
	"TerminalCommandFinishedAction.durationMs":   true,
}

// handWritten defs are emitted by hand in union.go because their wire form is
// not a discriminated object union.
var handWritten = map[string]bool{
	"StringOrMarkdown": true, // "text" | { markdown }
	"JsonPrimitive":    true, // string | number | boolean | null
}

// skipped defs describe TypeScript-only helper types, not wire messages.
var skipped = map[string]bool{
	"AhpErrorDetailsMap": true, // keys are TS expressions like [AhpErrorCodes.AuthRequired]
}

// numericEnumNames names the values of numeric enums; the schema only has
// the numbers. From spec/guide/state-model.md, the JSON-RPC 2.0 spec and the
// AHP spec text.
var numericEnumNames = map[string]map[string]string{
	"SessionStatus": {
		"1": "Idle", "2": "Error", "8": "InProgress", "24": "InputNeeded", "32": "IsRead", "64": "IsArchived",
	},
	"JsonRpcErrorCode": {
		"-32700": "ParseError", "-32600": "InvalidRequest", "-32601": "MethodNotFound",
		"-32602": "InvalidParams", "-32603": "InternalError",
	},
	"AhpErrorCode": {
		"-32003": "SessionAlreadyExists", "-32005": "UnsupportedProtocolVersion",
		"-32007": "AuthRequired", "-32009": "PermissionDenied",
	},
}

func mustSchema(s string) *schema {
	sc, err := parseSchema(json.RawMessage(s))
	if err != nil {
		panic(fmt.Sprintf("bad built-in schema %s: %v", s, err))
	}
	return sc
}

func removeRequired(s *schema, name string) {
	out := s.Required[:0:0]
	for _, r := range s.Required {
		if r != name {
			out = append(out, r)
		}
	}
	s.Required = out
}

func (ds *defSet) add(name string, s *schema) {
	if _, ok := ds.defs[name]; !ok {
		ds.names = append(ds.names, name)
	}
	ds.defs[name] = s
	ds.from[name] = "ahpgen"
}

// get returns $defs/n, or an error saying the schema changed under a patch.
func (ds *defSet) get(n string) (*schema, error) {
	s, ok := ds.defs[n]
	if !ok {
		return nil, fmt.Errorf("patch: $defs/%s not found; the schema changed, review patches*.go", n)
	}
	return s, nil
}

// unrequire drops each {def, property} from its def's required list.
func (ds *defSet) unrequire(pairs ...[2]string) error {
	for _, p := range pairs {
		s, err := ds.get(p[0])
		if err != nil {
			return err
		}
		removeRequired(s, p[1])
	}
	return nil
}

// constApproved: chat/toolCallConfirmed has two shapes told apart by the
// boolean `approved`, which the schema generator turns into `{}` (0.6 and
// 1.0 alike).
func (ds *defSet) constApproved() error {
	for n, v := range map[string]string{"ChatToolCallApprovedAction": "true", "ChatToolCallDeniedAction": "false"} {
		s, err := ds.get(n)
		if err != nil {
			return err
		}
		ap := s.prop("approved")
		if ap == nil {
			return fmt.Errorf("patch: %s.approved missing", n)
		}
		ap.Any = false
		ap.Const = json.RawMessage(v)
	}
	return nil
}

func (ds *defSet) patch06() error {
	get := ds.get

	// Defect 1 (README): an empty $ref in StateAction.oneOf.
	sa, err := get("StateAction")
	if err != nil {
		return err
	}
	var kept []*schema
	for _, b := range sa.OneOf {
		if b.Ref != "#/$defs/" {
			kept = append(kept, b)
		}
	}
	sa.OneOf = kept

	// Defect 2: `T | undefined` fields listed as required. The same slip
	// where the field's own doc says it may be `undefined` (clear) or
	// absent; reducer fixtures 134 and 141 send them absent.
	if err := ds.unrequire(
		[2]string{"ActionEnvelope", "origin"}, [2]string{"Turn", "usage"}, [2]string{"ActiveTurn", "usage"},
		[2]string{"SessionActivityChangedAction", "activity"},
		[2]string{"SessionChangesetsChangedAction", "changesets"},
		[2]string{"SessionMetaChangedAction", "_meta"},
		[2]string{"ChangesetOperationsChangedAction", "operations"},
		[2]string{"ToolCallClientContributor", "clientId"},
	); err != nil {
		return err
	}
	// Defect 3 (SessionStatus is a bitset) is handled in emitNumericEnum.

	// FileEdit sides carry a ContentRef (reducer fixtures 138-227 send
	// `content: { uri }`), flattened to string by the schema generator.
	for _, d := range []string{"FileEdit", "ToolResultFileEditContent"} {
		s, err := get(d)
		if err != nil {
			return err
		}
		for _, side := range []string{"before", "after"} {
			sp := s.prop(side)
			if sp == nil || sp.prop("content") == nil {
				return fmt.Errorf("patch: %s.%s.content missing", d, side)
			}
			c := sp.prop("content")
			*c = schema{Ref: "#/$defs/ContentRef", Description: c.Description}
		}
	}

	if err := ds.constApproved(); err != nil {
		return err
	}

	// ChatOrigin and ChangesetOperationTarget are inline unions whose `kind`
	// literals and field types were flattened to string. Named variants,
	// shapes from spec/specification/chat-channel.md and guide/changesets.md.
	co, err := get("ChatOrigin")
	if err != nil {
		return err
	}
	ds.add("ChatUserOrigin", mustSchema(`{"type":"object","description":"The user created the chat explicitly (e.g. via the host UI).",
		"properties":{"kind":{"const":"user"}},"required":["kind"]}`))
	ds.add("ChatForkOrigin", mustSchema(`{"type":"object","description":"The chat was forked from an existing chat at a specific turn.",
		"properties":{"kind":{"const":"fork"},"chat":{"$ref":"#/$defs/URI","description":"URI of the source chat."},
		"turnId":{"type":"string","description":"Turn of the source chat the fork was taken at."}},"required":["kind","chat","turnId"]}`))
	ds.add("ChatToolOrigin", mustSchema(`{"type":"object","description":"The chat was spawned by a tool call running in another chat (e.g. a sub-agent).",
		"properties":{"kind":{"const":"tool"},"chat":{"$ref":"#/$defs/URI","description":"URI of the chat whose tool call spawned this chat."},
		"toolCallId":{"type":"string","description":"The spawning tool call."}},"required":["kind","chat","toolCallId"]}`))
	co.OneOf = []*schema{{Ref: "#/$defs/ChatUserOrigin"}, {Ref: "#/$defs/ChatForkOrigin"}, {Ref: "#/$defs/ChatToolOrigin"}}

	ct, err := get("ChangesetOperationTarget")
	if err != nil {
		return err
	}
	ds.add("ChangesetOperationResourceTarget", mustSchema(`{"type":"object","description":"Targets a whole resource of the changeset.",
		"properties":{"kind":{"const":"resource"},"resource":{"$ref":"#/$defs/URI"},
		"side":{"type":"string","description":"'before' or 'after'."}},"required":["kind","resource"]}`))
	ds.add("ChangesetOperationRangeTarget", mustSchema(`{"type":"object","description":"Targets a range within a resource of the changeset.",
		"properties":{"kind":{"const":"range"},"resource":{"$ref":"#/$defs/URI"},
		"side":{"type":"string","description":"'before' or 'after'."},"range":{"$ref":"#/$defs/TextRange"}},"required":["kind","resource","range"]}`))
	ct.OneOf = []*schema{{Ref: "#/$defs/ChangesetOperationResourceTarget"}, {Ref: "#/$defs/ChangesetOperationRangeTarget"}}

	// The reconnect result union exists in the spec text but not as a $def.
	if _, ok := ds.defs["ReconnectResult"]; !ok {
		ds.add("ReconnectResult", mustSchema(`{"description":"Result of reconnect: either a replay of the missed actions or fresh snapshots.",
			"oneOf":[{"$ref":"#/$defs/ReconnectReplayResult"},{"$ref":"#/$defs/ReconnectSnapshotResult"}]}`))
	}
	for k := range overrides {
		var def, p string
		for i := range k {
			if k[i] == '.' {
				def, p = k[:i], k[i+1:]
				break
			}
		}
		s, err := get(def)
		if err != nil {
			return err
		}
		if s.prop(p) == nil {
			return fmt.Errorf("patch: override %s: no such property; the schema changed, review patches.go", k)
		}
	}
	return nil
}
