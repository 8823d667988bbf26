package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/internal/demotest"
)

// TestAnswersNameTheHostNotItsToken: against a demo host that wants a
// connection token, given in --host's URL, every answer inbox prints
// names the host by its token-free URL, in text and JSON (answer and
// answerArgs), and the token is nowhere in the output.
func TestAnswersNameTheHostNotItsToken(t *testing.T) {
	const secret = "s3cret-connection-token"
	h := demotest.Start(t, demohost.Config{ConnectionToken: secret})
	given := h.URL() + "?tkn=" + secret
	out, errs, code := run(t, false, nil, "inbox", "--json", "--host", given)
	if code != ExitOK {
		t.Fatalf("inbox: exit %d %s", code, errs)
	}
	var in inboxJSON
	if err := json.Unmarshal([]byte(out), &in); err != nil || len(in.Items) == 0 {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, it := range in.Items {
		if !strings.Contains(it.Answer, " --host "+h.URL()+" ") || !slices.Contains(it.AnswerArgs, h.URL()) {
			t.Errorf("%s's answer does not name the host: %q %q", it.Kind, it.Answer, it.AnswerArgs)
		}
	}
	text, _, _ := run(t, false, nil, "status", "--host", given)
	for _, o := range []string{out, text} {
		if strings.Contains(o, secret) || strings.Contains(o, "tkn") {
			t.Errorf("the connection token is in the output:\n%s", o)
		}
	}
	if !strings.Contains(text, "answer: ahptui auth login --host "+h.URL()+" --session ahp-session:/demo ") {
		t.Errorf("status text:\n%s", text)
	}
}
