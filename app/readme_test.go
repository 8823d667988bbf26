package app

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/views"
)

// TestREADMEListsEveryKey keeps the README's key table true: every key of
// every binding in keymap.DefaultKeyMap must be named there, so a binding
// added or changed in keymap/ without the README fails here.
func TestREADMEListsEveryKey(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatalf("read README.md: %v", err)
	}
	section := string(readme)
	start := strings.Index(section, "## Keys")
	if start < 0 {
		t.Fatal("README.md has no '## Keys' section")
	}
	section = section[start+len("## Keys"):]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(section, -1) {
		named[m[1]] = true
		for _, part := range strings.Split(m[1], "/") {
			named[part] = true
		}
	}
	display := map[string]string{"up": "↑", "down": "↓", "pgdown": "pgdn"}

	var bindings int
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if b, ok := v.Interface().(key.Binding); ok {
			bindings++
			for _, k := range b.Keys() {
				name := k
				if d, ok := display[k]; ok {
					name = d
				}
				if !named[name] {
					t.Errorf("README.md's key table does not name %q (%s: %s)", name, path, b.Help().Desc)
				}
			}
			return
		}
		if v.Kind() != reflect.Struct {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		}
	}
	walk("KeyMap", reflect.ValueOf(keymap.DefaultKeyMap()))
	if bindings < 30 {
		t.Fatalf("walked only %d bindings; the key map's shape changed and this test no longer sees it", bindings)
	}
}

// TestREADMEConnectWays keeps the README's connect section and flag table
// true: the three ways to connect are there, and every flag --help lists
// is in the configuration table.
func TestREADMEConnectWays(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	for _, want := range []string{"**1. Discovered: no flags.**", "**2. A URL.**", "**3. A saved name.**",
		"--connection-token-file", "AHPTUI_CONNECTION_TOKEN", "hosts.yml", "go run . hosts", "no agent host is running"} {
		if !strings.Contains(text, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
	var help strings.Builder
	_, _ = parseFlags([]string{"--help"}, &help)
	for _, m := range regexp.MustCompile(`(?m)^  (--[a-z-]+)`).FindAllStringSubmatch(help.String(), -1) {
		if !strings.Contains(text, "| `"+m[1]) {
			t.Errorf("README.md's flag table does not list %s", m[1])
		}
	}
}

// TestREADMEExplainsUnreadDot: the session list's unread dot was
// explained nowhere (issue 22, item 6). The README says what it means in
// the words the help overlay's legend uses.
func TestREADMEExplainsUnreadDot(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := views.UnreadMarker + " " + views.UnreadMeaning; !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not explain the session list's dot: it lacks %q", want)
	}
}
