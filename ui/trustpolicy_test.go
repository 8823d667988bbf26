package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/host/trust"
	"github.com/ahptui/ahptui/internal/trustcases"
	"github.com/ahptui/ahptui/protocol"
)

// TestTrustCasesUI runs the shared trust table (internal/trustcases)
// through the UI's entry point, pushSavedTokens, with a real
// Authenticator holding each case's real grant: a push reaches the
// client's authenticate, an ask is the matching question on screen
// (askPlainHost, askUseHere), a refusal neither. The commands reach the
// same decisions (cli's TestTrustCasesCLI).
func TestTrustCasesUI(t *testing.T) {
	as := trustcases.StartAuthServer(t)
	for _, tc := range trustcases.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			m := fxModel(fxChatState())
			m.cfg.Host = tc.Host
			m.cfg.RegistryHost = tc.Registry && tc.Proven
			m.cfg.Auth = trustcases.Auth(t, as, tc)
			if tc.UserAllowed {
				m.signin.plain.answered, m.signin.plain.allowed = true, true
			}
			res, issuer := tc.Advertised(as.Issuer())
			m.root.Agents[0].ProtectedResources = []protocol.ProtectedResourceMetadata{{Resource: res, AuthorizationServers: []string{issuer}}}
			rec := &authRecorder{stubClient: m.client.(*stubClient)}
			m.client = rec
			runAll(m, m.signin.pushSavedTokens())

			got, question := trust.Refuse, trust.NoQuestion
			if slices.ContainsFunc(rec.pushed, func(p string) bool { return strings.HasPrefix(p, trustcases.Resource+"|") }) {
				got = trust.Push
			}
			for _, a := range m.signin.asks {
				switch a.key {
				case "plain":
					got, question = trust.Ask, trust.SendPlain
				case "use|" + trustcases.Resource:
					got, question = trust.Ask, trust.UseHere
				}
			}
			if got != tc.Want || question != tc.Question {
				t.Fatalf("got %s/%s (pushed %v, %d questions), want %s/%s", got, question, rec.pushed, len(m.signin.asks), tc.Want, tc.Question)
			}
		})
	}
}
