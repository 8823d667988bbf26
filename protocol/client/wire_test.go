package client

import (
	"testing"

	"github.com/ahptui/ahptui/protocol"
)

// TestOnlyDefinedOn06: on the 0.6 wire an action type 0.6 does not define
// is made unknown (so the mirror ignores it), whatever converting it up
// did; on the 1.0 wire every decoded action stays.
func TestOnlyDefinedOn06(t *testing.T) {
	for _, tt := range []struct {
		action protocol.StateActionVariant
		wire   protocol.Wire
		kept   bool
	}{
		{protocol.SessionTitleChangedAction{Title: "t"}, protocol.Wire06, true},
		{protocol.ChatDeltaAction{TurnID: "t", PartID: "p", Content: "x"}, protocol.Wire06, true},
		{protocol.ChatTurnResumeAction{TurnID: "t"}, protocol.Wire06, false},
		{protocol.SessionMcpServerBackgroundRequestedAction{ID: "m"}, protocol.Wire06, false},
		{protocol.ChatTurnResumeAction{TurnID: "t"}, protocol.Wire10, true},
		{protocol.SessionMcpServerBackgroundRequestedAction{ID: "m"}, protocol.Wire10, true},
	} {
		env := protocol.ActionEnvelope{Action: protocol.NewStateAction(tt.action)}
		kind := env.Action.Kind()
		onlyDefined(tt.wire, &env)
		_, unknown := env.Action.Variant.(protocol.UnknownStateAction)
		if unknown == tt.kept || env.Action.Kind() != kind {
			t.Errorf("%s on %v: kept %v (kind %q), want kept %v", kind, tt.wire, !unknown, env.Action.Kind(), tt.kept)
		}
	}
}
