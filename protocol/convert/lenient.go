package convert

import (
	"bytes"
	"encoding/json"

	"github.com/ahptui/ahptui/protocol/internal/wirescan"
)

// Some hosts claim 1.0 but report a failed turn the way 0.8 did: VS Code
// 1.135 (code-server 4.135.0) negotiates "1.0.0", ends a turn with
// `chat/error {turnId, duration, error: ErrorInfo}` and keeps
// `error: ErrorInfo` on the completed Turn (state "error"), where 1.0 has
// an ErrorResponsePart (DELTA §7.3, §7.7). Read as 1.0, the reason is lost.
//
// The lenient step reads those two spellings on the 1.0 wire, and nothing
// else: only where the frame cannot mean anything else. A chat/error that
// carries a 1.0 `part` keeps it (an `error` beside it is an unknown member,
// ignored); a turn that already holds an error part keeps it, and its
// `error` is dropped rather than shown twice. What ahptui sends is not
// touched: it stays 1.0 and schema-checked.
var lenient10 = path{
	steps: []*step{{up: stepTables{
		actions: map[string]actionConv{
			"chat/error":       lenientChatError,
			"chat/turnsLoaded": editMember("turns", each(lenientTurn)),
		},
		states: map[string]stateConv{
			"chat": plain(fields(map[string]conv{"turns": each(lenientTurn)})),
		},
	}}},
	touched: set("chat/error", "chat/turnsLoaded"),
}

// errorKey is how an `error` member starts; a frame without it has neither
// early spelling, so the lenient step costs one search on frames that
// cannot need it.
var errorKey = []byte(`"error"`)

// Lenient10Params reads the early-1.0 spellings in the params of a
// notification from a 1.0 host (an action envelope's chat/error or
// chat/turnsLoaded); every other frame is returned as is.
func Lenient10Params(method string, params json.RawMessage) (json.RawMessage, error) {
	if !bytes.Contains(params, errorKey) {
		return params, nil
	}
	return lenient10.convert("params", method, params)
}

// Lenient10Result is Lenient10Params for a command's result: the chat
// snapshots of initialize, subscribe and reconnect, and a replay's actions.
func Lenient10Result(method string, result json.RawMessage) (json.RawMessage, error) {
	if !bytes.Contains(result, errorKey) {
		return result, nil
	}
	return lenient10.convert("result", method, result)
}

// lenientChatError gives a chat/error without a part the part its `error`
// names; one with a part is 1.0 and stays as it is.
func lenientChatError(_ string, o *object) error {
	if _, ok := o.get("part"); ok {
		return nil
	}
	if v, ok := o.get("error"); ok && isObject(v) {
		o.rename("error", "part", errorPart(v))
	}
	return nil
}

// lenientTurn moves a turn's `error` into an error part, as upTurn does,
// unless the turn already ends with one.
func lenientTurn(raw json.RawMessage) (json.RawMessage, error) {
	var out [2]json.RawMessage
	if !wirescan.ScanMembers(raw, out[:], "error", "responseParts") || out[0] == nil {
		return raw, nil
	}
	hasPart := false
	wirescan.ScanArray(out[1], func(e []byte) bool {
		if k, _ := discriminator(e, "kind"); string(k) == "error" {
			hasPart = true
			return false
		}
		return true
	})
	if hasPart || !isObject(out[0]) {
		return editObject(raw, func(o *object) error { o.del("error"); return nil })
	}
	return upTurn(raw)
}
