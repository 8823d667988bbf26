package convert

import (
	"encoding/json"

	"github.com/ahptui/ahptui/protocol"
)

// The 0.6 tests predate the other steps; these are the API on the 0.6
// path, the longest one (every step, both ways).

func upAction06(a json.RawMessage) (json.RawMessage, error) { return UpAction(protocol.Wire06, a) }
func downAction06(a json.RawMessage) (json.RawMessage, error) {
	return DownAction(protocol.Wire06, a)
}
func upState06(ch string, s json.RawMessage) (json.RawMessage, error) {
	return UpState(protocol.Wire06, ch, s)
}
func downState06(ch string, s json.RawMessage) (json.RawMessage, error) {
	return DownState(protocol.Wire06, ch, s)
}
func upParams06(m string, p json.RawMessage) (json.RawMessage, error) {
	return UpParams(protocol.Wire06, m, p)
}
func downParams06(m string, p json.RawMessage) (json.RawMessage, error) {
	return DownParams(protocol.Wire06, m, p)
}
func upResult06(m string, r json.RawMessage) (json.RawMessage, error) {
	return UpResult(protocol.Wire06, m, r)
}
func downResult06(m string, r json.RawMessage) (json.RawMessage, error) {
	return DownResult(protocol.Wire06, m, r)
}
