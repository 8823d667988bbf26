package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The committed types_gen.go must be exactly what the generator makes from
// the schemas: a hand edit, or a generator change without regenerating,
// fails here.
func TestGeneratedFileIsCurrent(t *testing.T) {
	schemas := os.Getenv("AHP_SCHEMAS")
	if schemas == "" {
		schemas = filepath.Join("..", "..", "..", "..", "shared", "ahp", "schema")
	}
	if _, err := os.Stat(schemas); err != nil {
		t.Fatalf("AHP schemas not found at %s (set AHP_SCHEMAS): %v", schemas, err)
	}
	out := filepath.Join(t.TempDir(), "types_gen.go")
	if err := run(schemas, out, "protocol"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "types_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("protocol/types_gen.go is stale: run `go generate ./protocol/...` and commit the result")
	}
}

// The same for the 1.0 wire types in protocol/ahp10, generated from the
// one 1.0.0 schema file with the 1.0 patch set.
func TestGenerated10FileIsCurrent(t *testing.T) {
	schemas := os.Getenv("AHP10_SCHEMAS")
	if schemas == "" {
		schemas = filepath.Join("..", "..", "..", "..", "shared", "ahp-1.0", "schema")
	}
	if _, err := os.Stat(schemas); err != nil {
		t.Fatalf("AHP 1.0 schema not found at %s (set AHP10_SCHEMAS): %v", schemas, err)
	}
	out := filepath.Join(t.TempDir(), "types_gen.go")
	err := runVersion(schemas, out, "ahp10", "1.0")
	patchSets["0.6"].use() // the other tests read the 0.6 tables
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "ahp10", "types_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("protocol/ahp10/types_gen.go is stale: run `go generate ./protocol/...` and commit the result")
	}
}

func TestInlineVariantNames(t *testing.T) {
	tests := map[string][2]string{
		"ChatOrigin":               {"Chat", "Origin"},
		"ChangesetOperationTarget": {"ChangesetOperation", "Target"},
		"CustomizationEnablement":  {"Customization", "Enablement"},
		"Origin":                   {"Origin", ""},
	}
	for in, want := range tests {
		if h, tl := splitLastWord(in); h != want[0] || tl != want[1] {
			t.Errorf("splitLastWord(%q) = %q, %q; want %q, %q", in, h, tl, want[0], want[1])
		}
	}
}

func TestGoFieldName(t *testing.T) {
	tests := map[string]string{
		"turnId":                "TurnId",
		"toolCallId":            "ToolCallId",
		"requiredScopes":        "RequiredScopes",
		"authorization_servers": "AuthorizationServers",
		"_meta":                 "Meta",
		"type":                  "Type",
	}
	for in, want := range tests {
		if got := goFieldName(in); got != want {
			t.Errorf("goFieldName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGoName(t *testing.T) {
	tests := map[string]string{
		"ClientId":                           "ClientID",
		"ToolCallId":                         "ToolCallID",
		"AnnotationIds":                      "AnnotationIDs",
		"Uri":                                "URI",
		"UriTemplate":                        "URITemplate",
		"ResourceTosUri":                     "ResourceTosURI",
		"JsonRpcErrorCodeParseError":         "JSONRPCErrorCodeParseError",
		"AhpMcpUiHostCapabilities":           "AhpMcpUIHostCapabilities",
		"jsonString":                         "jsonString",
		"idOf":                               "idOf",
		"UnmarshalJSON":                      "UnmarshalJSON",
		"McpServerState":                     "McpServerState",
		"Identity":                           "Identity",
		"Has":                                "Has",
		"ResourceName":                       "ResourceName",
		"peekChatInputQuestionId":            "peekChatInputQuestionID",
		"ChatInputQuestionKindSingle_select": "ChatInputQuestionKindSingle_select",
	}
	for in, want := range tests {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
		if again := goName(goName(in)); again != goName(in) {
			t.Errorf("goName is not idempotent on %q: %q", in, again)
		}
	}
}

func TestPascal(t *testing.T) {
	tests := map[string]string{
		"pending-confirmation": "PendingConfirmation",
		"read-only":            "ReadOnly",
		"utf-8":                "Utf8",
		"insufficientScope":    "InsufficientScope",
		"ahp-root://":          "AhpRoot",
		"1x":                   "V1x",
	}
	for in, want := range tests {
		if got := pascal(in); got != want {
			t.Errorf("pascal(%q) = %q, want %q", in, got, want)
		}
	}
}
