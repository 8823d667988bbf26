package convert

import (
	"encoding/json"
	"strings"

	"github.com/ahptui/ahptui/protocol/internal/wirescan"
)

// The shapes that differ between the wires, one up/down pair each, in the
// order of DELTA §13. A conv returns its input when nothing changes.

// ---- working directories (§13 #10, #11) ----

// upWorkingDirectory renames `workingDirectory: URI` to
// `workingDirectories: [URI]` (a null stays null, spelling "absent").
func upWorkingDirectory(o *object) {
	v, ok := o.get("workingDirectory")
	if !ok {
		return
	}
	if !isNull(v) {
		v = joinArray([]json.RawMessage{v})
	}
	o.rename("workingDirectory", "workingDirectories", v)
}

// downWorkingDirectories keeps the first (primary) directory of
// `workingDirectories`: 0.6 has room for one. An empty list ("none" for a
// chat) has no 0.6 spelling and is dropped, which 0.6 reads as "inherit".
func downWorkingDirectories(o *object) {
	v, ok := o.get("workingDirectories")
	if !ok {
		return
	}
	var first json.RawMessage
	wirescan.ScanArray(v, func(e []byte) bool { first = e; return false })
	if first == nil {
		if isNull(v) {
			o.rename("workingDirectories", "workingDirectory", v)
		} else {
			o.del("workingDirectories")
		}
		return
	}
	o.rename("workingDirectories", "workingDirectory", first)
}

// ---- session lifecycle (§13 #12) ----

var (
	lifecycleCreationFailed = json.RawMessage(`"creationFailed"`)
	lifecycleFailed         = json.RawMessage(`"failed"`)
)

func upLifecycle(o *object) {
	if v, ok := o.get("lifecycle"); ok && string(v) == string(lifecycleCreationFailed) {
		o.set("lifecycle", lifecycleFailed)
	}
}

func downLifecycle(o *object) {
	if v, ok := o.get("lifecycle"); ok && string(v) == string(lifecycleFailed) {
		o.set("lifecycle", lifecycleCreationFailed)
	}
}

// ---- customizations (§13 #4, #5) ----

// A 0.6 `enabled` is the effective value for this session as the host
// decided it; it becomes one decision of kind "session" (the most specific,
// so it sorts first and is the effective value in 1.0 too). Down takes the
// effective value of the decision list. So Down(Up(x)) == x; Up(Down(y))
// keeps y's effective value but not where a decision came from, which 0.6
// cannot say.
func sessionEnablement(enabled json.RawMessage) json.RawMessage {
	return around(`[{"kind":"session","enabled":`, enabled, `}]`)
}

// effectiveEnabled is protocol.EffectiveEnabled on raw JSON: the first
// decision's `enabled`, true when there is none (or it does not say).
func effectiveEnabled(enablement json.RawMessage) bool {
	on := true
	wirescan.ScanArray(enablement, func(e []byte) bool {
		var out [1]json.RawMessage
		if wirescan.ScanMembers(e, out[:], "enabled") {
			if b, ok := wirescan.JSONBool(out[0]); ok {
				on = b
			}
		}
		return false
	})
	return on
}

// hasEnablement is true for the customization types whose `enabled` 1.0
// replaced with decisions: MCP servers and plugins (client plugins are
// plugins on the wire). Directories and child entries keep `enabled`.
func hasEnablement(typ []byte) bool {
	return string(typ) == "mcpServer" || string(typ) == "plugin"
}

func upCustomization(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		if err := o.edit("children", each(upCustomization)); err != nil {
			return err
		}
		typ, _ := discriminator(raw, "type")
		if !hasEnablement(typ) {
			return nil
		}
		if v, ok := o.get("enabled"); ok {
			if isNull(v) {
				o.del("enabled")
			} else {
				o.rename("enabled", "enablement", sessionEnablement(v))
			}
		}
		return nil
	})
}

func downCustomization(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		if err := o.edit("children", each(downCustomization)); err != nil {
			return err
		}
		typ, _ := discriminator(raw, "type")
		if !hasEnablement(typ) {
			return nil
		}
		if err := downChildEnablement(o); err != nil {
			return err
		}
		v, ok := o.get("enablement")
		_, hasEnabled := o.get("enabled")
		switch {
		case ok && hasEnabled:
			o.del("enablement")
		case ok:
			o.rename("enablement", "enabled", mustJSON(effectiveEnabled(v)))
		case !hasEnabled:
			o.set("enabled", json.RawMessage("true")) // required before 0.8
		}
		return nil
	})
}

// downCustomizationState takes a customization's MCP server state, and
// its children's, down from 1.0 (downMcpServerState).
func downCustomizationState(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		if err := o.edit("children", each(downCustomizationState)); err != nil {
			return err
		}
		return o.edit("state", downMcpServerState)
	})
}

// downChildEnablement moves a client plugin's per-child decisions onto
// the children's own `enabled`, the only place 0.6 has for them.
func downChildEnablement(o *object) error {
	v, ok := o.get("childEnablement")
	if !ok {
		return nil
	}
	o.del("childEnablement")
	var byID map[string]json.RawMessage
	if json.Unmarshal(v, &byID) != nil || len(byID) == 0 {
		return nil
	}
	return o.edit("children", each(func(child json.RawMessage) (json.RawMessage, error) {
		id, _ := discriminator(child, "id")
		decisions, ok := byID[string(id)]
		if !ok {
			return child, nil
		}
		return editObject(child, func(c *object) error {
			c.set("enabled", mustJSON(effectiveEnabled(decisions)))
			return nil
		})
	}))
}

// downMcpServerState drops `blocking` (1.0 only: the host holds messages
// until discovery ends, which a 0.6 client cannot act on).
func downMcpServerState(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		o.del("blocking")
		return nil
	})
}

func upToggled(o *object) {
	if v, ok := o.get("enabled"); ok {
		o.rename("enabled", "enablement", sessionEnablement(v))
	}
}

func downToggled(o *object) {
	if v, ok := o.get("enablement"); ok {
		o.rename("enablement", "enabled", mustJSON(effectiveEnabled(v)))
	}
}

// ---- turn errors (§13 #6) ----

// errorPart is the 1.0 ErrorResponsePart for a 0.6 ErrorInfo. 0.6 has no
// resume, so the part is never resumable.
func errorPart(info json.RawMessage) json.RawMessage {
	return around(`{"kind":"error","error":`, info, `}`)
}

// upTurn moves `error` to an error part appended to `responseParts`, where
// a 1.0 reducer would have put it (chat/error appends its part).
func upTurn(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		info, ok := o.get("error")
		if !ok {
			return nil
		}
		o.del("error")
		if isNull(info) {
			return nil
		}
		parts, _ := o.get("responseParts")
		var elems []json.RawMessage
		wirescan.ScanArray(parts, func(e []byte) bool { elems = append(elems, e); return true })
		o.set("responseParts", joinArray(append(elems, errorPart(info))))
		return nil
	})
}

// downTurnErrors takes the error parts out of `responseParts` and puts the
// last one's error in `error` (before 0.9 a turn has one error, after the
// parts; the resumable flag is lost). In an active turn (asTurn false)
// there is no `error` to fill: a resumed turn's error part is history an
// older version cannot show.
func downTurnErrors(asTurn bool) conv {
	return func(raw json.RawMessage) (json.RawMessage, error) {
		return editObject(raw, func(o *object) error {
			parts, ok := o.get("responseParts")
			if !ok {
				return nil
			}
			var kept []json.RawMessage
			var lastErr json.RawMessage
			removed := false
			wirescan.ScanArray(parts, func(e []byte) bool {
				if k, _ := discriminator(e, "kind"); string(k) == "error" {
					removed = true
					var out [1]json.RawMessage
					if wirescan.ScanMembers(e, out[:], "error") && out[0] != nil {
						lastErr = out[0]
					}
					return true
				}
				kept = append(kept, e)
				return true
			})
			if removed {
				o.set("responseParts", joinArray(kept))
			}
			if asTurn && lastErr != nil {
				o.set("error", lastErr)
			}
			return nil
		})
	}
}

// downTurnParts takes a turn's (or active turn's) response parts to 0.6.
func downTurnParts(raw json.RawMessage) (json.RawMessage, error) {
	return fields(map[string]conv{"responseParts": each(downResponsePart)})(raw)
}

// ---- response parts and tool calls (§13 #7, #13) ----

// Nothing in a 0.6 response part needs a change going up. A tool call's
// string toolInput is already a 1.0 ToolInput, and terminalComplete
// result content is kept verbatim (an unknown variant to 1.0 decoders,
// which keep it): folding it into a sibling `terminal` content's `result`
// would need that sibling, lose its cwd and resource, and could not be
// undone.

func downResponsePart(raw json.RawMessage) (json.RawMessage, error) {
	return fields(map[string]conv{"toolCall": downToolCall})(raw)
}

// downToolCall drops a toolInput that is a ContentRef: 0.6 has only inline
// text, and a placeholder string would be shown (and could be confirmed)
// as if it were the agent's real input.
func downToolCall(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error { dropContentRefInput(o); return nil })
}

// dropContentRefInput is downToolCall on an object already open (the
// chat/toolCallReady action carries the same toolInput).
func dropContentRefInput(o *object) {
	if v, ok := o.get("toolInput"); ok && isObject(v) {
		o.del("toolInput")
	}
}

// isObject reports whether v is a JSON object, without decoding it: a
// ContentRef tool input against inline text, auth/required's metadata
// against the bare identifier.
func isObject(v json.RawMessage) bool {
	for _, c := range v {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

// ---- terminals (§13 #14) ----

// upTerminal turns `exitCode` into `lifecycle`: a code means the process
// exited, no code means it runs (0.6 has no "exited without a code").
func upTerminal(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		if _, ok := o.get("lifecycle"); ok {
			return nil
		}
		if v, ok := o.get("exitCode"); ok && !isNull(v) {
			o.rename("exitCode", "lifecycle", exitedLifecycle(v))
			return nil
		}
		o.del("exitCode")
		o.set("lifecycle", json.RawMessage(`{"status":"running"}`))
		return nil
	})
}

func exitedLifecycle(code json.RawMessage) json.RawMessage {
	return around(`{"status":"exited","exitCode":`, code, `}`)
}

// downTerminal moves an exited lifecycle's code back to `exitCode`; an exit
// without a code, or a running terminal, has no 0.6 spelling but silence.
func downTerminal(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		if err := o.edit("claim", downClaim); err != nil {
			return err
		}
		v, ok := o.get("lifecycle")
		if !ok {
			return nil
		}
		var out [2]json.RawMessage
		if wirescan.ScanMembers(v, out[:], "status", "exitCode") && string(out[0]) == `"exited"` && out[1] != nil && !isNull(out[1]) {
			o.rename("lifecycle", "exitCode", out[1])
			return nil
		}
		o.del("lifecycle")
		return nil
	})
}

// downClaim drops an empty `chat` from a session claim. 1.0 requires the
// chat (0.9) and the 1.0 model spells a 0.6 claim's missing chat as "";
// 0.6 has no chat there. A real chat URI is kept: 0.6 peers ignore it.
func downClaim(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		if v, ok := o.get("chat"); ok && (string(v) == `""` || isNull(v)) {
			o.del("chat")
		}
		return nil
	})
}

// ---- changesets (§9) ----

// downChangesetStatus: 1.0 added "recomputing" (a ready changeset being
// computed again); to a 0.6 peer that is "computing".
func downChangesetStatus(o *object) {
	if v, ok := o.get("status"); ok && string(v) == `"recomputing"` {
		o.set("status", json.RawMessage(`"computing"`))
	}
}

// ---- annotations (§9) ----

// annotationsSession is the session an annotations channel belongs to
// (ahp-session:/x/annotations → ahp-session:/x), "" when the channel is
// unknown: UpAction has no channel, UpParams passes the envelope's.
func annotationsSession(channel string) string {
	return strings.TrimSuffix(strings.TrimRight(channel, "/"), "/annotations")
}

// upAnnotationOrigin turns `turnId` into `origin: {session, turnId}`.
func upAnnotationOrigin(o *object, session string) {
	v, ok := o.get("turnId")
	if !ok {
		return
	}
	if isNull(v) {
		o.del("turnId")
		return
	}
	o.rename("turnId", "origin", around(`{"session":`+string(mustJSON(session))+`,"turnId":`, v, `}`))
}

// downAnnotationOrigin keeps the origin's turn id (0.6 names only the
// turn); required says whether 0.6 requires it (Annotation) or not
// (annotations/updated).
func downAnnotationOrigin(o *object, required bool) {
	v, ok := o.get("origin")
	if !ok {
		return
	}
	var out [1]json.RawMessage
	if wirescan.ScanMembers(v, out[:], "turnId") && out[0] != nil {
		o.rename("origin", "turnId", out[0])
		return
	}
	if required {
		o.rename("origin", "turnId", json.RawMessage(`""`))
		return
	}
	o.del("origin")
}

func upAnnotation(session string) conv {
	return func(raw json.RawMessage) (json.RawMessage, error) {
		return editObject(raw, func(o *object) error {
			upAnnotationOrigin(o, session)
			return nil
		})
	}
}

func downAnnotation(raw json.RawMessage) (json.RawMessage, error) {
	return editObject(raw, func(o *object) error {
		downAnnotationOrigin(o, true)
		return nil
	})
}

// ---- summaries ----

// summaryDirs converts a session or chat summary's working directories
// (0.7), up or down.
func summaryDirs(up bool) conv {
	return func(raw json.RawMessage) (json.RawMessage, error) {
		return editObject(raw, func(o *object) error {
			if up {
				upWorkingDirectory(o)
			} else {
				downWorkingDirectories(o)
			}
			return nil
		})
	}
}

// summaryLifecycle converts a summary's lifecycle (0.9), up or down. The
// 1.0-only members of a summary (a session's chats and default chat,
// changes, movable) are kept going down: the older schemas allow unknown
// members and an older peer ignores them.
func summaryLifecycle(up bool) conv {
	return func(raw json.RawMessage) (json.RawMessage, error) {
		return editObject(raw, func(o *object) error {
			if up {
				upLifecycle(o)
			} else {
				downLifecycle(o)
			}
			return nil
		})
	}
}
