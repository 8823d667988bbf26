package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONFieldsAndJQ: --json=FIELDS keeps those top-level fields of
// each row, --jq runs gojq over the JSON (strings raw, other values as
// compact JSON, implying --json), and a bad expression or field is a
// usage error that names what is wrong before anything runs.
func TestJSONFieldsAndJQ(t *testing.T) {
	out, errs, code := run(t, false, nil, "sessions", "--demo", "--json=session,title")
	if code != 0 {
		t.Fatalf("--json=session,title: exit %d: %s", code, errs)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) == 0 {
		t.Fatalf("--json=session,title: %v\n%s", err, out)
	}
	for _, r := range rows {
		if len(r) != 2 || r["session"] == nil || r["title"] == nil {
			t.Errorf("row %v: want session and title only", r)
		}
	}
	if !strings.Contains(out, "\n  ") {
		t.Errorf("--json=FIELDS lost the indentation:\n%s", out)
	}

	out, errs, code = run(t, false, nil, "sessions", "--demo", "--jq", `.[] | select(.session == "ahp-session:/demo") | .session`)
	if code != 0 || out != "ahp-session:/demo\n" {
		t.Fatalf("--jq string: exit %d, stdout %q, stderr %s", code, out, errs)
	}
	out, _, code = run(t, false, nil, "sessions", "--demo", "--jq", `[.[].session] | length > 1`, "--json")
	if code != 0 || out != "true\n" {
		t.Fatalf("--jq boolean: exit %d, stdout %q", code, out)
	}
	out, _, code = run(t, false, nil, "--jq", `{s: .[0].session}`, "sessions", "--demo")
	if code != 0 || !strings.HasPrefix(out, `{"s":"ahp-session:/`) {
		t.Fatalf("--jq object before the command: exit %d, stdout %q", code, out)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "--demo", "--jq", ".[] | select("}, "--jq"},
		{[]string{"sessions", "--demo", "--jq", "nosuchfn(1)"}, "nosuchfn"},
		{[]string{"sessions", "--demo", "--json=title,nosuch"}, "has no field"},
		{[]string{"sessions", "--demo", "--json=a b"}, "not a field name"},
		{[]string{"sessions", "--demo", "--jq", ".[0].title.x"}, "--jq"},
	} {
		out, errs, code := run(t, false, nil, tc.args...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) || strings.Contains(errs, "panic") {
			t.Errorf("%v: exit %d, want %d with %q\nstdout %s\nstderr %s", tc.args, code, ExitUsage, tc.want, out, errs)
		}
	}
}

// TestJQRawStringOnATerminal: a raw string result is host text on a
// terminal: its escape sequences are stripped there, kept in a pipe.
func TestJQRawStringOnATerminal(t *testing.T) {
	f := &jsonFilter{tty: true}
	var err error
	f2 := &jsonFilter{}
	if err = compileInto(f, ".t"); err != nil {
		t.Fatal(err)
	}
	if err = compileInto(f2, ".t"); err != nil {
		t.Fatal(err)
	}
	doc := []byte(`{"t":"a\u001b]52;c;eA==\u0007b"}`)
	got, err := f.apply(doc)
	if err != nil || strings.Contains(string(got), "\x1b") {
		t.Errorf("terminal: %q, %v", got, err)
	}
	got, err = f2.apply(doc)
	if err != nil || !strings.Contains(string(got), "\x1b") {
		t.Errorf("pipe: %q, %v", got, err)
	}
}
