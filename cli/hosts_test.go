package cli

import (
	"os"
	"reflect"
	"regexp"
	"testing"
)

// TestDocsNameHostsJSON: docs/cli.md names every member of hosts list's
// hosts add's, hosts rm's and demo serve's JSON.
func TestDocsNameHostsJSON(t *testing.T) {
	doc, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{hostsListJSON{}, savedHostJSON{}, savedRowJSON{}, localHostJSON{}, hostRemovedJSON{}, demoServeJSON{}} {
		for _, name := range jsonFieldsOf(reflect.TypeOf(v)) {
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).Match(doc) {
				t.Errorf("docs/cli.md does not name %T's %q", v, name)
			}
		}
	}
}
