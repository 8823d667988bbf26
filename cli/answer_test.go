package cli

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol"
)

// TestAnswersRefuseWhatTheQuestionCannotTake: a value a question cannot
// take is a usage error naming what it takes; never a "needs an answer",
// and never one value sent while another is printed.
func TestAnswersRefuseWhatTheQuestionCannotTake(t *testing.T) {
	yes := true
	lo, hi := 1.0, 10.0
	req := protocol.ChatInputRequest{ID: "r", Questions: []protocol.ChatInputQuestion{
		protocol.NewChatInputQuestion(protocol.ChatInputSingleSelectQuestion{ID: "target", Message: "Target", Required: &yes,
			Options: []protocol.ChatInputOption{{ID: "staging", Label: "Staging"}, {ID: "production", Label: "Production"}}}),
		protocol.NewChatInputQuestion(protocol.ChatInputMultiSelectQuestion{ID: "regions", Message: "Regions",
			Options: []protocol.ChatInputOption{{ID: "eu", Label: "Europe"}, {ID: "us", Label: "US"}}}),
		protocol.NewChatInputQuestion(protocol.ChatInputNumberQuestion{ID: "count", Kind: "integer", Message: "How many", Min: &lo, Max: &hi}),
		protocol.NewChatInputQuestion(protocol.ChatInputNumberQuestion{ID: "ratio", Kind: "number", Message: "Ratio"}),
		protocol.NewChatInputQuestion(protocol.ChatInputBooleanQuestion{ID: "sure", Message: "Sure?"}),
		protocol.NewChatInputQuestion(protocol.ChatInputTextQuestion{ID: "notes", Message: "Notes"}),
	}}
	for _, tc := range []struct {
		given []string
		want  string
	}{
		{[]string{"target=mars"}, `"mars" is not an option of target (options: staging, production)`},
		{[]string{"target=staging", "target=production"}, `"target" takes one answer, and 2 were given ("staging", "production")`},
		{[]string{"target=staging,production"}, `"target" takes one option, not several`},
		{[]string{"target=staging", "regions=eu,mars"}, `"mars" is not an option of regions (options: eu, us)`},
		{[]string{"target=staging", "count=many"}, `"count" wants a number, not "many"`},
		{[]string{"target=staging", "count=2.5"}, `"count" wants a whole number, not "2.5"`},
		{[]string{"target=staging", "count=11"}, `"count" wants a number from 1 to 10, not "11"`},
		{[]string{"target=staging", "ratio=NaN"}, `"ratio" wants a number, not "NaN"`},
		{[]string{"target=staging", "sure=maybe"}, `"sure" wants yes or no, not "maybe"`},
		{[]string{"target=staging", "notes=a", "notes=b"}, `"notes" takes one answer, and 2 were given`},
	} {
		_, _, err := answersFor(req, tc.given)
		if err == nil || exitCode(err) != ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v (exit %d), want %q", tc.given, err, exitCode(err), tc.want)
		}
	}
	answers, shown, err := answersFor(req, []string{"target=Production", "regions=eu", "regions=US", "count=3", "ratio=0.5", "sure=yes"})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := answers["target"].Variant.(protocol.ChatInputAnswered)
	if sel, ok := a.Value.Variant.(protocol.ChatInputSelectedAnswerValue); !ok || sel.Value != "production" {
		t.Errorf("target sent as %+v", answers["target"])
	}
	if shown["target"] != "Production" || shown["regions"] != "eu,US" || shown["count"] != "3" {
		t.Errorf("shown %v", shown)
	}
}
