package cli

import (
	"testing"

	"github.com/ahptui/ahptui/host/trust"
	"github.com/ahptui/ahptui/internal/trustcases"
	"github.com/ahptui/ahptui/protocol"
)

// TestTrustCasesCLI runs the shared trust table (internal/trustcases)
// through the function pushSaved acts on, planSaved, with a real
// Authenticator holding each case's real grant: the decision must be the
// table's, the same one the UI's pushSavedTokens reaches
// (ui's TestTrustCasesUI).
func TestTrustCasesCLI(t *testing.T) {
	as := trustcases.StartAuthServer(t)
	for _, tc := range trustcases.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			auth := trustcases.Auth(t, as, tc)
			source := trust.CommandLine
			if tc.Registry && tc.Proven {
				source = trust.Registry
			}
			c := &conn{host: tc.Host, auth: auth, pushed: map[string]bool{}, source: source, allowSaved: tc.UserAllowed}
			res, issuer := tc.Advertised(as.Issuer())
			root := protocol.RootState{Agents: []protocol.AgentInfo{{Provider: "p",
				ProtectedResources: []protocol.ProtectedResourceMetadata{{Resource: res, AuthorizationServers: []string{issuer}}}}}}
			got := trust.Verdict{Kind: trust.Refuse}
			for _, p := range c.planSaved(root, nil) {
				if p.want.Resource == trustcases.Resource {
					got = p.verdict
				}
			}
			if got.Kind != tc.Want || (tc.Want == trust.Ask && got.Question != tc.Question) {
				t.Fatalf("got %s/%s (%s), want %s/%s", got.Kind, got.Question, got.Reason, tc.Want, tc.Question)
			}
		})
	}
}
