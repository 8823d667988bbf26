package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/authpkce"
)

// TestRenderGrantOverlayNamesIssuer: the sign-in sheet always names the
// authorization server the host named (the issuer); a device code's
// verification page on another origin is shown with a warning that names
// both, even on a sheet too short for the explanations (issue 21,
// finding 3).
func TestRenderGrantOverlayNamesIssuer(t *testing.T) {
	const issuer = "http://127.0.0.1:40111"
	device := GrantView{
		Phase: GrantWaiting, Resource: "https://mcp.example/deploy",
		Server: "microsoft.com", Issuer: issuer,
		Device:        &DeviceView{UserCode: "ABCD-EFGH", VerificationURI: "https://microsoft.com/devicelogin"},
		OriginWarning: authpkce.OriginWarning("microsoft.com", issuer, true),
	}
	flat := func(s string) string { return strings.Join(strings.Fields(ansi.Strip(s)), " ") }
	for _, h := range []int{40, 9} {
		out := flat(RenderGrantOverlay(noColorTheme, device, 100, h))
		for _, want := range []string{"microsoft.com", issuer, "not the authorization server the host names"} {
			if !strings.Contains(out, want) {
				t.Errorf("height %d: a device page on another origin: the sheet lacks %q:\n%s", h, want, out)
			}
		}
		if strings.Contains(out, "microsoft.com (the authorization server the host names)") {
			t.Errorf("height %d: the sheet calls microsoft.com the authorization server the host names:\n%s", h, out)
		}
	}

	same := device
	same.Server, same.ServerIsIssuer = "127.0.0.1:40111", true
	same.Device = &DeviceView{UserCode: "ABCD-EFGH", VerificationURI: issuer + "/device"}
	out := flat(RenderGrantOverlay(noColorTheme, same, 100, 40))
	if !strings.Contains(out, issuer) || strings.Contains(out, "not the authorization server") {
		t.Errorf("a device page on the issuer: want the issuer named, no warning:\n%s", out)
	}

	browser := GrantView{Phase: GrantWaiting, Resource: "https://mcp.example/deploy", URL: "https://login.example/authorize?x=1",
		Server: "login.example", Issuer: "https://id.example/tenant", BrowserOpened: true}
	out = flat(RenderGrantOverlay(noColorTheme, browser, 100, 40))
	for _, want := range []string{"login.example", "https://id.example/tenant"} {
		if !strings.Contains(out, want) {
			t.Errorf("a browser sign-in page on another origin: the sheet lacks %q:\n%s", want, out)
		}
	}
}
