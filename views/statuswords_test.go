package views

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// toolCallStatusLiteral matches a tool-call status written as a Go string
// literal. protocol owns those words (protocol.ToolCallStatus*); a copy in
// ui or views would drift from the reducer the day the schema renames one.
var toolCallStatusLiteral = regexp.MustCompile(`"(pending-confirmation|pending-result-confirmation|auth-required|running|completed|cancelled|streaming)"`)

// TestNoToolCallStatusLiterals greps every Go file of ui/ and views/, tests
// included, for tool-call status literals. A test that needs wire JSON
// builds it through protocol's types, so it has no reason to spell one.
func TestNoToolCallStatusLiterals(t *testing.T) {
	var hits []string
	for _, dir := range []string{".", filepath.Join("..", "ui")} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			// This file spells the words to test the pattern itself.
			if d.IsDir() || !strings.HasSuffix(path, ".go") || d.Name() == "statuswords_test.go" {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				// A comment may name a status; only code can compare one.
				if !strings.HasPrefix(strings.TrimSpace(line), "//") && toolCallStatusLiteral.MatchString(line) {
					hits = append(hits, fmt.Sprintf("%s:%d: %s", path, i+1, strings.TrimSpace(line)))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walk %s: %v", dir, err)
		}
	}
	if len(hits) > 0 {
		t.Fatalf("tool-call status literals outside protocol (use protocol.ToolCallStatus*):\n%s", strings.Join(hits, "\n"))
	}
}

// TestToolCallStatusLiteralCatches keeps the grep honest: it must match
// the way a status would be written and nothing that merely mentions one.
func TestToolCallStatusLiteralCatches(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{`case "auth-required":`, true},
		{`if s == "running" {`, true},
		{`x := "pending-result-confirmation"`, true},
		{`// a running call`, false},
		{`"running late"`, false},
		{`protocol.ToolCallStatusRunning`, false},
	} {
		if got := toolCallStatusLiteral.MatchString(tc.line); got != tc.want {
			t.Errorf("%q: matched %v, want %v", tc.line, got, tc.want)
		}
	}
}
