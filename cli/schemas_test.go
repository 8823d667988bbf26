package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// schemaFor is the docs/schemas file of a command: its words after
// ahptui, joined by "-".
func schemaFor(c *cobra.Command) string {
	return strings.ReplaceAll(strings.TrimPrefix(c.CommandPath(), "ahptui "), " ", "-") + ".json"
}

// TestEveryCommandHasASchema: each command that prints --json has its
// JSON Schema in docs/schemas (completion prints a shell script, help
// and a help topic such as exit-codes text), and every schema there is a
// command's, the error object's or the shared defs.
func TestEveryCommandHasASchema(t *testing.T) {
	want := map[string]bool{"defs.json": true, "error.json": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		if !c.Runnable() && !c.HasSubCommands() {
			return // a help topic: ahptui help exit-codes
		}
		if c.HasSubCommands() {
			for _, sub := range c.Commands() {
				walk(sub)
			}
			return
		}
		want[schemaFor(c)] = true
		if _, err := os.Stat(filepath.Join("../docs/schemas", schemaFor(c))); err != nil {
			t.Errorf("%s has no schema: %v", c.CommandPath(), err)
		}
	}
	walk(newRoot(&app{}))
	files, _ := filepath.Glob("../docs/schemas/*.json")
	for _, f := range files {
		if !want[filepath.Base(f)] {
			t.Errorf("%s is no command's schema", f)
		}
	}
}

// TestSchemasMatchTypes: each output type's JSON members are the
// properties its schema lists, and the members always written (no
// omitempty) are the ones the schema requires: a member added to a type
// and not to its schema, or made optional in one and not the other,
// fails here even when no golden shows it.
func TestSchemasMatchTypes(t *testing.T) {
	for _, tc := range []struct {
		v   any
		loc string // file#JSON pointer
	}{
		{hostRef{}, "defs.json#/$defs/host"},
		{hostJSON{}, "defs.json#/$defs/hostRow"},
		{sessionJSON{}, "defs.json#/$defs/session"},
		{waitJSON{}, "defs.json#/$defs/waiting"},
		{optionJSON{}, "defs.json#/$defs/option"},
		{questionJSON{}, "defs.json#/$defs/question"},
		{toolCallJSON{}, "defs.json#/$defs/toolCall"},
		{partJSON{}, "defs.json#/$defs/part"},
		{turnJSON{}, "defs.json#/$defs/turn"},
		{decisionJSON{}, "defs.json#/$defs/decision"},
		{mcpJSON{}, "defs.json#/$defs/mcpServer"},
		{grantJSON{}, "defs.json#/$defs/grant"},
		{agentJSON{}, "defs.json#/$defs/agent"},
		{savedHostJSON{}, "defs.json#/$defs/savedHost"},
		{hostsListJSON{}, "hosts-list.json#"},
		{savedRowJSON{}, "hosts-list.json#/properties/saved/items"},
		{localHostJSON{}, "hosts-list.json#/properties/local/items"},
		{hostRemovedJSON{}, "hosts-rm.json#"},
		{demoServeJSON{}, "demo-serve.json#"},
		{statusJSON{}, "status.json#"},
		{hostStatusJSON{}, "status.json#/properties/hosts/items"},
		{inboxJSON{}, "inbox.json#"},
		{inboxItemJSON{}, "inbox.json#/properties/items/items"},
		{watchEvent{}, "watch.json#"},
		{chatJSON{}, "show.json#"},
		{sentJSON{}, "send.json#"},
		{answeredJSON{}, "answer.json#"},
		{createdJSON{}, "new.json#"},
		{loginJSON{}, "auth-login.json#"},
		{loggedOutJSON{}, "auth-logout.json#/items"},
		{checkJSON{}, "doctor.json#/properties/checks/items"},
		{resumedJSON{}, "resume.json#"},
		{chatSummaryJSON{}, "chats-list.json#/items"},
		{chatCreatedJSON{}, "defs.json#/$defs/chatCreated"},
		{changesetJSON{}, "changes-list.json#/items"},
		{changeFileJSON{}, "changes-list.json#/items/properties/files/items"},
		{changeDiffJSON{}, "changes-diff.json#"},
		{settingJSON{}, "settings-show.json#/items"},
		{choiceJSON{}, "settings-show.json#/items/properties/choices/items"},
		{settingSetJSON{}, "settings-set.json#"},
		{terminalJSON{}, "terminals-list.json#/items"},
		{terminalShowJSON{}, "terminals-show.json#"},
		{commandJSON{}, "terminals-show.json#/properties/commands/items"},
	} {
		typ := reflect.TypeOf(tc.v)
		props, required := schemaAt(t, tc.loc)
		members, always := jsonMembers(typ)
		if !slices.Equal(members, props) {
			t.Errorf("%s has members %v; %s lists %v", typ.Name(), members, tc.loc, props)
		}
		if !slices.Equal(always, required) {
			t.Errorf("%s always writes %v; %s requires %v", typ.Name(), always, tc.loc, required)
		}
	}
}

// schemaAt is the sorted property names and required members of the
// object schema at loc.
func schemaAt(t *testing.T, loc string) (props, required []string) {
	t.Helper()
	file, ptr, _ := strings.Cut(loc, "#")
	b, err := os.ReadFile(filepath.Join("../docs/schemas", file))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, p := range strings.Split(strings.Trim(ptr, "/"), "/") {
		if p == "" {
			continue
		}
		m, _ := v.(map[string]any)
		if v = m[p]; v == nil {
			t.Fatalf("%s: no %s", loc, p)
		}
	}
	m, _ := v.(map[string]any)
	if m["additionalProperties"] != false {
		t.Errorf("%s: not closed (additionalProperties false)", loc)
	}
	ps, _ := m["properties"].(map[string]any)
	for k := range ps {
		props = append(props, k)
	}
	rs, _ := m["required"].([]any)
	for _, r := range rs {
		required = append(required, r.(string))
	}
	slices.Sort(props)
	slices.Sort(required)
	return props, required
}

// jsonMembers is typ's JSON member names (embedded structs' included),
// sorted, and those written whatever their value.
func jsonMembers(typ reflect.Type) (all, always []string) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			a, w := jsonMembers(f.Type)
			all, always = append(all, a...), append(always, w...)
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		all = append(all, name)
		if !strings.Contains(opts, "omitempty") {
			always = append(always, name)
		}
	}
	slices.Sort(all)
	slices.Sort(always)
	return all, always
}
