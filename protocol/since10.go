package protocol

import (
	"encoding/json"
	"fmt"
)

// AHP 0.9.x, VS Code's 0.10.x and 1.x share a wire (WireOf), but 1.0 added
// members and actions a client may send that a 0.9 peer does not define
// (../shared/ahp-1.0/DELTA.md §2.7, §3.1, §6.4, §7.7). A client that
// negotiated an earlier number sends none of them: a member is dropped
// (each is optional and only informs the host) and an action or command is
// refused. VS Code's 0.10.0 predates 1.0.0, so it is held to the same
// rule.

// since10Members lists, per command, the params members 1.0 added.
var since10Members = map[string][]string{
	"authenticate": {"expiresIn"}, // DELTA §3.1
}

// since10Kinds lists the action types 1.0 added (DELTA §6.4, §7.7),
// host-only ones included so a client never echoes one back.
var since10Kinds = map[string]bool{
	"session/chatsReordered":               true,
	"session/mcpServerBackgroundRequested": true,
	"chat/backgroundWorkSet":               true,
	"chat/backgroundWorkRemoved":           true,
	"chat/movableChanged":                  true,
	"chat/changesetsChanged":               true,
	"chat/isReadChanged":                   true,
	"chat/isArchivedChanged":               true,
	"chat/canvasesChanged":                 true,
	"canvas/stateChanged":                  true,
}

// since10Commands lists the commands 1.0 added (DELTA §2.7).
var since10Commands = map[string]bool{"moveChat": true}

// Before10 reports whether version is on the 1.0 wire but numbered before
// 1.0.0 (upstream 0.9.x, VS Code 0.10.x): what 1.0 added is not sent to it.
func Before10(version string) bool {
	v, err := ParseVersion(version)
	return err == nil && WireOf(version) == Wire10 && v.Major == 0
}

// ActionDefinedIn reports whether a peer that negotiated version defines
// the action type kind as far as 1.0's additions go (the 0.6 wire has its
// own rules, in protocol/convert).
func ActionDefinedIn(version, kind string) bool {
	return !Before10(version) || !since10Kinds[kind]
}

// CommandDefinedIn reports whether a peer that negotiated version defines
// the command method as far as 1.0's additions go.
func CommandDefinedIn(version, method string) bool {
	return !Before10(version) || !since10Commands[method]
}

// TrimParamsTo drops from a command's encoded params the members the
// negotiated version does not define; params already in that version's
// shape are returned as they are.
func TrimParamsTo(version, method string, params json.RawMessage) (json.RawMessage, error) {
	drop := since10Members[method]
	if len(drop) == 0 || !Before10(version) {
		return params, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(params, &obj); err != nil {
		return nil, fmt.Errorf("trim %s params to AHP %s: %w", method, version, err)
	}
	changed := false
	for _, m := range drop {
		if _, ok := obj[m]; ok {
			delete(obj, m)
			changed = true
		}
	}
	if !changed {
		return params, nil
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("trim %s params to AHP %s: %w", method, version, err)
	}
	return out, nil
}
