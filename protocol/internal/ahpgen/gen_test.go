package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The committed types_gen.go files must be exactly what the generator
// makes from the schemas: a hand edit, or a generator change without
// regenerating, fails here. The 0.6 types come from the five 0.6.0 schema
// files (protocol/ahp06), the 1.0 ones (protocol, the model) from the one
// 1.0.0 file.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	defer patchSets["0.6"].use() // the other tests read the 0.6 tables
	for _, tt := range []struct {
		version, env, shared, pkg, file string
	}{
		{"0.6", "AHP_SCHEMAS", "ahp", "ahp06", filepath.Join("..", "..", "ahp06", "types_gen.go")},
		{"1.0", "AHP10_SCHEMAS", "ahp-1.0", "protocol", filepath.Join("..", "..", "types_gen.go")},
	} {
		t.Run(tt.version, func(t *testing.T) {
			schemas := os.Getenv(tt.env)
			if schemas == "" {
				schemas = filepath.Join("..", "..", "..", "..", "shared", tt.shared, "schema")
			}
			if _, err := os.Stat(schemas); err != nil {
				t.Fatalf("AHP %s schemas not found at %s (set %s): %v", tt.version, schemas, tt.env, err)
			}
			out := filepath.Join(t.TempDir(), "types_gen.go")
			if err := runVersion(schemas, out, tt.pkg, tt.version); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s is stale: run `go generate ./protocol/...` and commit the result", tt.file)
			}
		})
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
