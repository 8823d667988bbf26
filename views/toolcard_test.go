package views

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

func ptr[T any](v T) *T { return &v }

func mcpContrib(id string) *protocol.ToolCallContributor {
	c := protocol.ToolCallContributor{Variant: protocol.ToolCallMcpContributor{CustomizationID: id}}
	return &c
}

func textResult(s string) []protocol.ToolResultContent {
	return []protocol.ToolResultContent{protocol.NewToolResultContent(protocol.ToolResultTextContent{Text: s})}
}

const deployInput = "{\n  \"service\": \"api\",\n  \"environment\": \"production\",\n  \"version\": \"2026.11.29-1\",\n  \"strategy\": \"canary\",\n  \"notify\": [\"#deploys\"]\n}"

var deployAuth = protocol.McpAuthRequirement{
	Reason:         "insufficientScope",
	Resource:       protocol.ProtectedResourceMetadata{Resource: "https://mcp.example.com/deploy"},
	RequiredScopes: []string{"tools:deploy"},
	Description:    ptr("The deploy tool needs the tools:deploy scope."),
}

// toolCardCases covers every ToolCallState variant, completed both ways.
var toolCardCases = []struct {
	name string
	tc   protocol.ToolCallState
	ctx  CardContext
}{
	{protocol.ToolCallStatusStreaming, protocol.NewToolCallState(protocol.ToolCallStreamingState{
		ToolCallID: "tc-1", ToolName: "deploy", DisplayName: "Deploy service", Contributor: mcpContrib("mcp-deploy"),
		PartialInput: ptr("{\n  \"service\": \"api\",\n  \"envir"),
	}), CardContext{ServerName: "deploy-server"}},
	{"pending_confirmation", protocol.NewToolCallState(protocol.ToolCallPendingConfirmationState{
		ToolCallID: "tc-2", ToolName: "deploy", DisplayName: "Deploy service", Contributor: mcpContrib("mcp-deploy"),
		Intention:         ptr("Ship the fix for the login bug"),
		InvocationMessage: protocol.PlainString("Deploy api 2026.11.29-1 to production"),
		ToolInput:         protocol.InlineToolInput(deployInput),
		Options: []protocol.ConfirmationOption{
			{ID: "once", Label: "Allow once", Kind: protocol.ConfirmationOptionKindApprove},
			{ID: "always", Label: "Always allow", Kind: protocol.ConfirmationOptionKindApprove},
			{ID: "no", Label: "Deny", Kind: protocol.ConfirmationOptionKindDeny},
		},
	}), CardContext{ServerName: "deploy-server", Selected: true}},
	{protocol.ToolCallStatusRunning, protocol.NewToolCallState(protocol.ToolCallRunningState{
		ToolCallID: "tc-3", ToolName: "run_tests", DisplayName: "Run tests",
		InvocationMessage: protocol.PlainString("go test ./..."), ToolInput: protocol.InlineToolInput(`{"pkg":"./..."}`),
		Confirmed: protocol.ToolCallConfirmationReasonUserAction,
		Content:   textResult("ok  \tgithub.com/ahptui/ahptui/protocol\t0.412s\n?   \tgithub.com/ahptui/ahptui/views\t[no test files]"),
	}), CardContext{}},
	{"auth_required", protocol.NewToolCallState(protocol.ToolCallAuthRequiredState{
		ToolCallID: "tc-4", ToolName: "deploy", DisplayName: "Deploy service",
		Contributor:       protocol.ToolCallMcpContributor{CustomizationID: "mcp-deploy"},
		InvocationMessage: protocol.PlainString("Deploy api to production"),
		Confirmed:         protocol.ToolCallConfirmationReasonUserAction, Auth: deployAuth,
	}), CardContext{ServerName: "deploy-server", Selected: true}},
	{"auth_required_grant_waiting", protocol.NewToolCallState(protocol.ToolCallAuthRequiredState{
		ToolCallID: "tc-4", ToolName: "deploy", DisplayName: "Deploy service",
		Contributor:       protocol.ToolCallMcpContributor{CustomizationID: "mcp-deploy"},
		InvocationMessage: protocol.PlainString("Deploy api to production"),
		Confirmed:         protocol.ToolCallConfirmationReasonUserAction, Auth: deployAuth,
	}), CardContext{ServerName: "deploy-server", Selected: true, Grant: &GrantView{
		Phase: GrantWaiting, Resource: "https://mcp.example.com/deploy", URL: grantURL, BrowserOpened: false}}},
	{"pending_result_confirmation", protocol.NewToolCallState(protocol.ToolCallPendingResultConfirmationState{
		ToolCallID: "tc-5", ToolName: "read_secret", DisplayName: "Read secret",
		InvocationMessage: protocol.PlainString("Read DATABASE_URL"), Success: true,
		PastTenseMessage: protocol.PlainString("Read DATABASE_URL"),
		Content:          textResult("postgres://app:••••@db.internal:5432/app"),
		Confirmed:        protocol.ToolCallConfirmationReasonSetting,
	}), CardContext{Selected: true}},
	{"completed_success", protocol.NewToolCallState(protocol.ToolCallCompletedState{
		ToolCallID: "tc-6", ToolName: "read_file", DisplayName: "Read file",
		InvocationMessage: protocol.PlainString("Reading views/theme.go"), ToolInput: protocol.InlineToolInput(`{"path":"views/theme.go"}`),
		Success: true, PastTenseMessage: protocol.PlainString("Read views/theme.go"),
		Content:   textResult(strings.Repeat("line of the file\n", 12)),
		Confirmed: protocol.ToolCallConfirmationReasonNotNeeded,
	}), CardContext{}},
	{"completed_failure", protocol.NewToolCallState(protocol.ToolCallCompletedState{
		ToolCallID: "tc-7", ToolName: "deploy", DisplayName: "Deploy service", Contributor: mcpContrib("mcp-deploy"),
		InvocationMessage: protocol.PlainString("Deploy api to production"),
		Success:           false, PastTenseMessage: protocol.PlainString("Deploy failed"),
		Error:     &protocol.ToolCallResultError{Message: "canary health check failed: 5xx rate 12%", Code: ptr("E_CANARY")},
		Confirmed: protocol.ToolCallConfirmationReasonUserAction,
	}), CardContext{ServerName: "deploy-server"}},
	{protocol.ToolCallStatusCancelled, protocol.NewToolCallState(protocol.ToolCallCancelledState{
		ToolCallID: "tc-8", ToolName: "rm", DisplayName: "Delete files",
		InvocationMessage: protocol.PlainString("rm -rf build/"), Reason: protocol.ToolCallCancellationReasonDenied,
		ReasonMessage: ptr(protocol.PlainString("not now, the build is still needed")),
	}), CardContext{}},
	// A running MCP call whose server flipped to authRequired: the grant
	// prompt sits on the card, like an auth-required call's.
	{"running_server_needs_signin", protocol.NewToolCallState(protocol.ToolCallRunningState{
		ToolCallID: "tc-9", ToolName: "list_issues", DisplayName: "List issues", Contributor: mcpContrib("mcp-gh"),
		InvocationMessage: protocol.PlainString("Listing open issues"),
		Confirmed:         protocol.ToolCallConfirmationReasonNotNeeded,
	}), CardContext{ServerName: "GitHub", Selected: true, Grant: &GrantView{
		Phase: GrantOffered, Resource: "GitHub (https://mcp.example.com/gh)", Reason: "required", Scopes: []string{"mcp:read"}}}},
	// Host messages marked as markdown show their inline formatting.
	{"markdown_messages", protocol.NewToolCallState(protocol.ToolCallPendingConfirmationState{
		ToolCallID: "tc-10", ToolName: "deploy", DisplayName: "Deploy service",
		InvocationMessage: protocol.MarkdownString("Deploy the **preview** environment of `api` from _main_ ([logs](https://ci.example.com/1))"),
		ConfirmationTitle: ptr(protocol.MarkdownString("Allow **deploy** to touch *preview*?")),
	}), CardContext{Selected: true}},
}

func TestRenderToolCardGolden(t *testing.T) {
	for _, tc := range toolCardCases {
		for _, w := range goldenWidths {
			out := RenderToolCard(noColorTheme, tc.tc, tc.ctx, w)
			checkScreen(t, noColorTheme, out, w)
			checkGolden(t, "toolcard_"+tc.name, w, out)
		}
		out := RenderToolCard(colorTheme, tc.tc, tc.ctx, 100)
		checkScreen(t, colorTheme, out, 100)
		checkGolden(t, "toolcard_"+tc.name+"_color", 100, out)
	}
}

// The card says in words what state the call is in and what the user can
// do: readable without colour, and never offering keys that do nothing.
func TestRenderToolCardContent(t *testing.T) {
	find := func(name string) (protocol.ToolCallState, CardContext) {
		for _, c := range toolCardCases {
			if c.name == name {
				return c.tc, c.ctx
			}
		}
		t.Fatalf("no case %s", name)
		return protocol.ToolCallState{}, CardContext{}
	}
	tests := []struct {
		name     string
		want     []string
		wantNot  []string
		selected *bool
	}{
		{protocol.ToolCallStatusStreaming, []string{"preparing", "Deploy service", "deploy-server"}, []string{"approve"}, nil},
		{"pending_confirmation", []string{"needs approval", "a/y approve", "x deny", "Allow once", "why: Ship the fix", "more lines"}, nil, nil},
		{"pending_confirmation", []string{"needs approval"}, []string{"a/y approve"}, ptr(false)},
		{protocol.ToolCallStatusRunning, []string{protocol.ToolCallStatusRunning, "output so far", "ok"}, []string{"approve"}, nil},
		{"auth_required", []string{"needs sign-in", "needs additional permission: tools:deploy", "enter/g grant access"}, nil, nil},
		{"auth_required_grant_waiting", []string{"Waiting for you to approve in the browser", "Could not open a browser", "esc cancel sign-in"}, nil, nil},
		{"pending_result_confirmation", []string{"review result", "accept result", "reject result"}, nil, nil},
		{"completed_success", []string{"done", "Read views/theme.go", "6 more lines"}, []string{"error"}, nil},
		{"completed_failure", []string{"failed", "error: canary health check failed: 5xx rate 12% (E_CANARY)"}, nil, nil},
		{protocol.ToolCallStatusCancelled, []string{protocol.ToolCallStatusCancelled, "denied by the user: not now"}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			call, ctx := find(tc.name)
			if tc.selected != nil {
				ctx.Selected = *tc.selected
			}
			checkCard(t, ansi.Strip(RenderToolCard(noColorTheme, call, ctx, 100)), tc.want, tc.wantNot)
		})
	}
}

// flatCard is a card's text with frames and runs of spaces folded, so a
// test reads what it says whatever the wrapping.
func flatCard(s string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("│", " ", "┃", " ", "║", " ").Replace(ansi.Strip(s))), " ")
}

// checkCard fails t unless the card out says every one of want (wrapping
// aside) and none of wantNot, in its words or its raw bytes.
func checkCard(t *testing.T, out string, want, wantNot []string) {
	t.Helper()
	flat := flatCard(out)
	for _, w := range want {
		if !strings.Contains(flat, w) {
			t.Errorf("card lacks %q:\n%s", w, out)
		}
	}
	for _, w := range wantNot {
		if strings.Contains(flat, w) || strings.Contains(out, w) {
			t.Errorf("card has %q but should not:\n%s", w, out)
		}
	}
}

func TestRenderToolCardExpanded(t *testing.T) {
	call := toolCardCases[6].tc // completed_success, 12 lines of result
	short := RenderToolCard(noColorTheme, call, CardContext{}, 80)
	long := RenderToolCard(noColorTheme, call, CardContext{Expanded: true}, 80)
	if got := strings.Count(long, "line of the file"); got != 12 {
		t.Errorf("expanded card shows %d result lines, want 12", got)
	}
	if got := strings.Count(short, "line of the file"); got != collapsedResultLines {
		t.Errorf("collapsed card shows %d result lines, want %d", got, collapsedResultLines)
	}
}

// A hostile tool name, server name, input and result are drawn inert.
func TestRenderToolCardHostile(t *testing.T) {
	evil := "\x1b]52;c;cm0gLXJmIC8=\x07\x1b[2J\x1b[31mevil\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\r\u202e\x9b1m"
	call := protocol.NewToolCallState(protocol.ToolCallCompletedState{
		ToolCallID: "tc-x", ToolName: evil, DisplayName: evil, Intention: ptr(evil),
		InvocationMessage: protocol.PlainString(evil), ToolInput: protocol.InlineToolInput(evil + "\n" + evil),
		Success: false, PastTenseMessage: protocol.MarkdownString(evil),
		Error:   &protocol.ToolCallResultError{Message: evil, Code: ptr(evil)},
		Content: textResult(evil),
	})
	for _, th := range []Theme{noColorTheme, colorTheme} {
		for _, w := range goldenWidths {
			out := RenderToolCard(th, call, CardContext{ServerName: evil, Selected: true, Expanded: true}, w)
			checkScreen(t, th, out, w)
			if plain := ansi.Strip(out); strings.Contains(plain, "52;c") || strings.Contains(plain, "[2J") {
				t.Fatalf("escape payload visible: %q", plain)
			}
			if th.NoColor {
				checkGolden(t, "toolcard_hostile", w, out)
			}
		}
	}
}

func TestRenderToolCardWidths(t *testing.T) {
	for _, th := range []Theme{noColorTheme, colorTheme} {
		for _, tc := range toolCardCases {
			for w := 10; w <= 250; w += 3 {
				checkScreen(t, th, RenderToolCard(th, tc.tc, tc.ctx, w), w)
			}
		}
	}
}

func TestServerNameFor(t *testing.T) {
	custom := mcpCustomizations()
	tests := []struct {
		name string
		tc   protocol.ToolCallState
		want string
	}{
		{"top level", protocol.NewToolCallState(protocol.ToolCallStreamingState{ToolCallID: "a", Contributor: mcpContrib("mcp-github")}), "github"},
		{"inside a plugin", protocol.NewToolCallState(protocol.ToolCallStreamingState{ToolCallID: "a", Contributor: mcpContrib("mcp-deploy")}), "deploy-server"},
		{"inside a directory", protocol.NewToolCallState(protocol.ToolCallStreamingState{ToolCallID: "a", Contributor: mcpContrib("mcp-local")}), "local-files"},
		{"auth-required contributor", toolCardCases[3].tc, "deploy-server"},
		{"unknown server", protocol.NewToolCallState(protocol.ToolCallStreamingState{ToolCallID: "a", Contributor: mcpContrib("nope")}), ""},
		{"client tool", protocol.NewToolCallState(protocol.ToolCallStreamingState{ToolCallID: "a",
			Contributor: &protocol.ToolCallContributor{Variant: protocol.ToolCallClientContributor{}}}), ""},
		{"no contributor", protocol.NewToolCallState(protocol.ToolCallStreamingState{ToolCallID: "a"}), ""},
	}
	for _, tc := range tests {
		if got := ServerNameFor(tc.tc, custom); got != tc.want {
			t.Errorf("%s: ServerNameFor = %q, want %q", tc.name, got, tc.want)
		}
	}
}

var (
	sgrRE  = regexp.MustCompile("\x1b\\[[0-9;:]*m")
	boldRE = regexp.MustCompile("\x1b\\[(?:[0-9;:]*;)?1(?:;[0-9;:]*)?m")
)

// A markdown message loses its markup, keeps its words, styles emphasis
// (bold/italic SGR even without colour), keeps block syntax as text, is
// sanitized, and every wrapped line closes its own styling.
func TestMessageLinesMarkdown(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // the visible text, lines joined with a space
		bold     bool
	}{
		{"emphasis", "Deploy the **preview** environment", "Deploy the preview environment", true},
		{"code and link", "Run `go test` on [the repo](https://x.example)", "Run go test on the repo", false},
		{"heading stays text", "# 3 files changed", "# 3 files changed", false},
		{"list stays text", "- remove build/", "- remove build/", false},
		{"ordered stays text", "1. first step", "1. first step", false},
		{"bold at start", "**Careful**: deletes data", "Careful: deletes data", true},
		{"only a rule", "---", "---", false},
		{"html is text", "<b>hi</b> there", "<b>hi</b> there", false},
		{"entity spelling an escape", "a &#27;[2J&#x9b;31m b &amp; c", "", false},
		{"hostile", "Deploy \x1b]8;;http://evil\x07**now**\x1b[2J\u202e", "Deploy now", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, th := range []Theme{noColorTheme, colorTheme} {
				for _, w := range []int{8, 20, 80} {
					lines := messageLines(th.Text, tc.in, true, w)
					out := strings.Join(lines, "\n")
					checkScreen(t, th, out, w)
					var vis []string
					for _, l := range lines {
						vis = append(vis, ansi.Strip(l))
						if seqs := sgrRE.FindAllString(l, -1); len(seqs) > 0 && seqs[len(seqs)-1] != "\x1b[m" && seqs[len(seqs)-1] != "\x1b[0m" {
							t.Errorf("line %q does not end its styling", l)
						}
					}
					got := strings.Join(strings.Fields(strings.Join(vis, " ")), " ")
					if w == 80 && tc.want != "" && got != tc.want {
						t.Errorf("%q at %d: shows %q, want %q", tc.in, w, got, tc.want)
					}
					if tc.bold && w == 80 && !boldRE.MatchString(out) {
						t.Errorf("%q: no bold in %q", tc.in, out)
					}
					if strings.Contains(got, "**") {
						t.Errorf("%q: raw markup left in %q", tc.in, got)
					}
				}
			}
		})
	}
	// Plain messages are left alone, asterisks and all.
	if got := ansi.Strip(strings.Join(messageLines(noColorTheme.Text, "a **b**", false, 80), "")); got != "a **b**" {
		t.Errorf("plain message changed: %q", got)
	}
}

// TestToolCardServerNamedLikeTool: "Deploy · Deploy" says the name twice;
// the server shows only when it differs from the tool's name.
func TestToolCardServerNamedLikeTool(t *testing.T) {
	call := protocol.NewToolCallState(protocol.ToolCallRunningState{ToolCallID: "c1", ToolName: "deploy",
		DisplayName: "Deploy", InvocationMessage: protocol.PlainString("Deploying")})
	for _, tc := range []struct{ server, want, not string }{
		{"Deploy", "Deploy", "Deploy · Deploy"},
		{"deploy ", "Deploy", "· deploy"},
		{"Deploy MCP", "Deploy · Deploy MCP", ""},
	} {
		head := strings.Split(ansi.Strip(RenderToolCard(noColorTheme, call, CardContext{ServerName: tc.server}, 80)), "\n")[1]
		if !strings.Contains(head, tc.want) || (tc.not != "" && strings.Contains(head, tc.not)) {
			t.Errorf("server %q: header %q, want %q without %q", tc.server, head, tc.want, tc.not)
		}
	}
}
