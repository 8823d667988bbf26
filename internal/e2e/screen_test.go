package e2e

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures are real capture-pane screens of ahptui --demo --no-browser
// waiting on the deploy tool's step-up sign-in. grant_200x60 and
// grant_100x40 are from an earlier UI (badges right of the names, the
// prompt directly in the card, a wide emoji shifting rune offsets);
// grant_nested_100x40 is the current one (badges under the names, the
// prompt boxed inside the card, the card's top border scrolled away).
// The authorization URL is hard-wrapped over 4, 9 and 10 lines.
const fixtureAuthURL = "http://127.0.0.1:46215/authorize?client_id=dyn-3TM7D0euL0z7ZGZdaanSALoH" +
	"&code_challenge=VeF2Oc0sskxSwtcpNRLocfebdsnZJ10x6_aIVrG5-dQ&code_challenge_method=S256" +
	"&redirect_uri=http%3A%2F%2F127.0.0.1%3A36955%2Fcallback&resource=http%3A%2F%2F127.0.0.1%3A44505%2Fmcp%2Fdeploy" +
	"&response_type=code&scope=tools%3Adeploy&state=NVG5S5H334BQ26N4YVO6M64BPY"

const fixtureNestedAuthURL = "http://127.0.0.1:38241/authorize?client_id=dyn-7kYR1UZmkcIXIYIcmRTFnccj" +
	"&code_challenge=ypVrE65sK9r5hrBb6Zqg0KZw40VfpAtRF9-XRqSCd1g&code_challenge_method=S256" +
	"&redirect_uri=http%3A%2F%2F127.0.0.1%3A34203%2Fcallback&resource=http%3A%2F%2F127.0.0.1%3A42139%2Fmcp%2Fdeploy" +
	"&response_type=code&scope=tools%3Adeploy&state=76VHK4YB3BJRFR7LVGZYDBTX5T"

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadGrantScreen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file    string
		chat    string // a prefix of the chat panel's title (the session title)
		wantURL string
		badge   map[string]string
	}{
		{"grant_200x60.txt", "Demo: MCP servers, tools and sign-in", fixtureAuthURL,
			map[string]string{"GitHub": "⚠ sign in", "Filesystem": "● ready", "Deploy": "● ready", "Flaky": "✗ error"}},
		{"grant_100x40.txt", "Demo: MCP servers", fixtureAuthURL,
			map[string]string{"GitHub": "⚠ sign in", "Filesystem": "● ready", "Deploy": "● ready", "Flaky": "✗ error"}},
		{"grant_nested_100x40.txt", "Demo: MCP servers", fixtureNestedAuthURL,
			map[string]string{"GitHub": "⚠ sign in", "Filesystem": "○ stopped", "Deploy": "● ready", "Flaky": "✗ error"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			screen := readFixture(t, tc.file)
			chat, ok := Panel(screen, tc.chat)
			if !ok {
				t.Fatalf("no chat panel titled %q", tc.chat)
			}
			u, err := AuthURL(chat)
			if err != nil {
				t.Fatalf("AuthURL: %v\nchat panel:\n%s", err, strings.Join(chat, "\n"))
			}
			if u.String() != tc.wantURL {
				t.Errorf("AuthURL =\n %s\nwant\n %s", u, tc.wantURL)
			}
			if err := CheckAuthURL(u, "/mcp/deploy", "tools:deploy"); err != nil {
				t.Errorf("CheckAuthURL: %v", err)
			}
			for server, want := range tc.badge {
				if got, ok := MCPBadge(screen, server); !ok || got != want {
					t.Errorf("MCPBadge(%s) = %q, %v; want %q", server, got, ok, want)
				}
			}
			sess, ok := Panel(screen, "Sessions (2)")
			if flat := Flatten(sess); !ok || !strings.Contains(flat, "Demo: MCP ser") || strings.Index(flat, "Demo:") > strings.Index(flat, "Earlier:") {
				t.Errorf("sessions panel = %q, %v; want the demo session first", flat, ok)
			}
		})
	}
}

func TestMCPSelected(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		"mcp_stopped_100x40.txt":  "Filesystem",
		"grant_nested_100x40.txt": "Filesystem",
		"grant_200x60.txt":        "", // that UI drew the cursor in colour only
	} {
		screen := readFixture(t, file)
		if got := MCPSelected(screen); got != want {
			t.Errorf("%s: MCPSelected = %q, want %q", file, got, want)
		}
	}
	screen := readFixture(t, "mcp_stopped_100x40.txt")
	if b, ok := MCPBadge(screen, "Filesystem"); !ok || b != "○ stopped" {
		t.Errorf("MCPBadge(Filesystem) = %q, %v; want ○ stopped", b, ok)
	}
}

// The helpers must fail, not guess: a truncated URL, a URL without PKCE, a
// missing panel and an unknown server all come back empty-handed.
func TestReadScreenRefuses(t *testing.T) {
	t.Parallel()
	screen := readFixture(t, "grant_200x60.txt")
	if _, ok := Panel(screen, "No such panel"); ok {
		t.Error("Panel found a panel that is not on screen")
	}
	if _, ok := MCPBadge(screen, "Git"); ok {
		t.Error("MCPBadge matched a prefix of a server name")
	}
	if _, ok := MCPBadge("no panels here", "GitHub"); ok {
		t.Error("MCPBadge without an MCP panel")
	}
	for name, lines := range map[string][]string{
		"resource only":  {"│ Resource: Deploy (http://127.0.0.1:1/mcp/deploy) │", "│ http://127.0.0.1:1/mcp/deploy │"},
		"truncated":      {"│ http://127.0.0.1:1/authorize?code_challenge=abc&st… │"},
		"empty":          nil,
		"text after url": {"│ http://127.0.0.1:1/authorize?code_challenge=a │", "│ esc cancel &state=12345678 │"},
	} {
		if u, err := AuthURL(lines); err == nil {
			t.Errorf("%s: AuthURL = %s, want an error", name, u)
		}
	}
	bad, _ := url.Parse("https://evil.example/authorize?code_challenge_method=plain&code_challenge=x&state=s&redirect_uri=http://evil.example/cb&resource=https://x/other")
	err := CheckAuthURL(bad, "/mcp/deploy", "tools:deploy")
	if err == nil {
		t.Fatal("CheckAuthURL accepted a plain-PKCE, non-loopback request")
	}
	for _, want := range []string{"code_challenge_method", "state", "client_id", "resource", "scope", "redirect_uri", "loopback", "response_type"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("CheckAuthURL error does not mention %s: %v", want, err)
		}
	}
}

// A wide grapheme left of a panel takes two cells but one rune; the panel's
// text must still come out whole on that row.
func TestPanelCountsCells(t *testing.T) {
	t.Parallel()
	screen := strings.Join([]string{
		"╭──────╮┏━ Right ━━┓",
		"│ 🔑 x │┃ abc      ┃",
		"│ 漢字 │┃ def      ┃",
		"╰──────╯┗━━━━━━━━━━┛",
	}, "\n")
	got, ok := Panel(screen, "Right")
	if want := []string{" abc", " def"}; !ok || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Panel(Right) = %q, %v; want %q", got, ok, want)
	}
	if got := Flatten(got); got != "abc def" {
		t.Errorf("Flatten = %q", got)
	}
}
