package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/protocol"
)

// deployCard waits for an auth-required deploy card other than those in
// seen and selects it, with the chat focused.
func deployCard(d *driver, seen ...itemKey) chatItem {
	d.t.Helper()
	it := d.waitItem("an auth-required deploy", func(it chatItem) bool {
		if it.Tool.Status() != protocol.ToolCallStatusAuthRequired {
			return false
		}
		for _, k := range seen {
			if it.key() == k {
				return false
			}
		}
		return true
	})
	d.m.focus, d.m.chatPanel.sel = focusChat, selOf(it)
	return it
}

// chatShows reports whether the chat panel's text (squashed) holds want.
func chatShows(m *Model, want string) bool {
	return strings.Contains(squash(ansi.Strip(strings.Join(m.chatPanel.view(m.layout.Chat), "\n"))), squash(want))
}

// TestFreshChallengeFreshPrompt: a new sign-in prompt showed the previous
// one's outcome (issue 22, item 1): after deploy was granted and the
// sign-in forgotten, the next deploy's card read "✓ access granted"; after
// esc then n, the next one read "sign-in cancelled · enter/g try again". A
// challenge raised after a flow ended is a fresh prompt, with its scope
// explanation.
func TestFreshChallengeFreshPrompt(t *testing.T) {
	fresh := func(t *testing.T, d *driver, when string) {
		t.Helper()
		d.m.resize(120, 40)
		for _, want := range []string{"Grant additional access", "tools:deploy", "enter/g grant access"} {
			if !chatShows(d.m, want) {
				t.Fatalf("%s: the new card does not show %q:\n%s", when, want, ansi.Strip(d.m.Render()))
			}
		}
		for _, stale := range []string{"✓ access granted", "sign-in cancelled", "try again"} {
			if chatShows(d.m, stale) {
				t.Fatalf("%s: the new card shows the old flow's %q:\n%s", when, stale, ansi.Strip(d.m.Render()))
			}
		}
	}
	t.Run("granted then forgotten", func(t *testing.T) {
		d := newDriver(t, newAuth(t))
		d.openDemo()
		d.sendMessage("deploy")
		first := deployCard(d)
		d.keys("g")
		res := first.Tool.AuthRequirement().Resource.Resource
		d.until("sign-in URL", func() bool { g := d.m.signin.grants[res]; return g != nil && g.url != "" })
		approveInBrowser(t, d.m.signin.grants[res].url)
		d.until("access granted", func() bool { return d.m.signin.grants[res].phase == grantDone })
		d.keys("S", "x", "y")
		d.until("forgotten", func() bool { return strings.HasPrefix(d.m.signin.list.note, "forgot") })
		d.keys("esc")
		d.sendMessage("deploy")
		deployCard(d, first.key())
		fresh(t, d, "after a forget")
	})
	t.Run("cancelled then declined", func(t *testing.T) {
		d := newDriver(t, newAuth(t))
		d.openDemo()
		d.sendMessage("deploy")
		first := deployCard(d)
		res := first.Tool.AuthRequirement().Resource.Resource
		d.keys("g")
		d.until("waiting", func() bool { g := d.m.signin.grants[res]; return g != nil && g.grant != nil })
		d.keys("esc")
		d.until("the flow ended by esc", func() bool { return d.m.signin.grants[res].phase == grantCancelled })
		if !chatShows(d.m, "sign-in cancelled") {
			t.Fatalf("the cancelled card does not say so:\n%s", ansi.Strip(d.m.Render()))
		}
		d.keys("n")
		d.waitItem("the first deploy declined", func(it chatItem) bool {
			return it.key() == first.key() && it.Tool.Status() != protocol.ToolCallStatusAuthRequired
		})
		d.until("the turn over", func() bool { return d.m.chat.ActiveTurn == nil })
		d.sendMessage("deploy")
		deployCard(d, first.key())
		fresh(t, d, "after esc then n")
	})
}

// TestEscOnGrantPromptCloses: esc on a grant prompt with no sign-in
// running said "no sign-in is waiting" (issue 22, item 9c) while the help
// offers esc on it. It closes the prompt without declining (the tool call
// still waits) and says how to come back.
func TestEscOnGrantPromptCloses(t *testing.T) {
	d := newDriver(t, newAuth(t))
	d.openDemo()
	d.sendMessage("deploy")
	d.expectSent("chat/turnStarted")
	it := deployCard(d)
	d.keys("esc")
	d.until("a message", func() bool { return d.m.status.text != "" && !strings.HasPrefix(d.m.status.text, "message") })
	if strings.Contains(d.m.status.text, "no sign-in is waiting") || !strings.Contains(d.m.status.text, "closed") {
		t.Fatalf("esc on the prompt says %q", d.m.status.text)
	}
	if _, ok := d.m.chatPanel.selectedItem(); ok {
		t.Fatal("esc left the prompt selected")
	}
	if now, _ := d.itemWhere(func(x chatItem) bool { return x.key() == it.key() }); now.Tool.Status() != protocol.ToolCallStatusAuthRequired {
		t.Fatalf("esc declined the tool call: %s", now.Tool.Status())
	}
	d.expectSent()
	// ! comes back to it, and the grant keys work again.
	d.keys("!")
	if sel, ok := d.m.chatPanel.selectedItem(); !ok || sel.key() != it.key() {
		t.Fatal("! did not come back to the prompt")
	}
}

// TestPasteFieldEdits: the pasted-address field could not be cleared, and
// after a refused paste a second paste appended to the first, so the
// right address failed too (issue 22, item 2). It edits like every other
// single-line input (bubbles textinput keys), shows where the cursor is,
// and a refused address is cleared.
func TestPasteFieldEdits(t *testing.T) {
	d, g, landed := signInLandedElsewhere(t)
	d.keys("p")
	value := func() string { return d.m.signin.paste.in.Value() }
	for _, k := range []string{"ctrl+u", "ctrl+a", "home"} {
		d.send(tea.PasteMsg{Content: "http://wrong.example/x"})
		d.keys(k)
		if k == "ctrl+u" {
			if value() != "" {
				t.Fatalf("ctrl+u left %q", value())
			}
			continue
		}
		d.typeText("Z")
		if !strings.HasPrefix(value(), "Z") {
			t.Fatalf("%s then Z gives %q: the cursor did not go to the start", k, value())
		}
		if gv := d.m.signin.overlayView(g); gv.PasteTail == 0 {
			t.Fatalf("%s: the field shows the cursor at the end (tail %d)", k, gv.PasteTail)
		}
		d.keys("end", "ctrl+u")
	}
	d.send(tea.PasteMsg{Content: "http://a.example/one two"})
	d.keys("ctrl+w")
	if value() != "http://a.example/one " {
		t.Fatalf("ctrl+w gives %q", value())
	}
	d.keys("left", "left", "ctrl+e", "ctrl+u")
	// A refused paste is cleared: the next paste is the whole field.
	forged := *landed
	q := forged.Query()
	q.Set("state", "not-this-sign-in")
	forged.RawQuery = q.Encode()
	d.send(tea.PasteMsg{Content: forged.String()})
	d.keys("enter")
	d.until("the forged address refused", func() bool { return d.m.signin.paste.err != "" })
	if value() != "" {
		t.Fatalf("the refused address stays in the field: %q", value())
	}
	if !strings.Contains(overlayText(d.m), squash(d.m.signin.paste.err)) {
		t.Fatalf("the refusal is not shown under the field:\n%s", ansi.Strip(d.m.Render()))
	}
	d.send(tea.PasteMsg{Content: landed.String()})
	d.keys("enter")
	d.until("GitHub ready after the second paste", githubReady(d))
}

// TestExpandOnSelectedCard: once a card was selected (after ! or an
// approval), e toggled the card only and said nothing, so the reasoning
// could not be opened (issue 22, item 10). e on a card opens the card
// and its turn's reasoning, and says so; on a turn without reasoning it
// says that.
func TestExpandOnSelectedCard(t *testing.T) {
	m := fxModel(fxChatState())
	m.resize(160, 60)
	m.focus = focusChat
	m.chatPanel.sel = chatSel{item: "tc1", turn: "t1"}
	m.chatPanel.scroll = 1 << 20
	_, cmd := m.Update(press("e"))
	runAll(m, cmd)
	if !m.chatPanel.expanded["r1"] {
		t.Fatal("e on a card of a turn with reasoning did not open the reasoning")
	}
	m.chatPanel.scroll = 1 << 20
	if !strings.Contains(m.Render(), "Look for TestReconnect first.") {
		t.Fatalf("the reasoning is not shown:\n%s", m.Render())
	}
	if !strings.Contains(m.status.text, "reasoning") {
		t.Fatalf("e said %q", m.status.text)
	}
	m.Update(press("!")) // the approval card of the running turn, which has none
	if sel, ok := m.chatPanel.selectedItem(); !ok || sel.ID != "tc4" {
		t.Fatalf("! selected %+v", m.chatPanel.sel)
	}
	_, cmd = m.Update(press("e"))
	runAll(m, cmd)
	if !strings.Contains(m.status.text, "no reasoning") {
		t.Fatalf("e on a card whose turn has no reasoning said %q", m.status.text)
	}
}

// TestURLAlone: the sign-in URL copied from the sheet's hard-wrapped rows
// came out broken (issue 22, item 11). v prints it alone on the normal
// screen, one line, and enter comes back; a URL a terminal must not be
// handed whole is refused with a reason.
func TestURLAlone(t *testing.T) {
	const u = "https://auth.example.com/authorize?client_id=a&state=b&redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2Fcallback"
	var out strings.Builder
	c := &urlAlone{url: u}
	c.SetStdin(strings.NewReader("\n"))
	c.SetStdout(&out)
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.ReplaceAll(out.String(), "\r\n", "\n"), "\n")
	found := false
	for _, l := range lines {
		found = found || l == u
	}
	if !found {
		t.Fatalf("the URL is not on a line of its own: %q", out.String())
	}
	m := fxModel(fxChatState())
	for _, bad := range []string{"javascript:alert(1)", "https://a.example/\x1b]0;x\x07"} {
		cmd := m.signin.showURLAlone(&grantFlow{url: bad})
		st, ok := cmd().(statusMsg)
		if !ok || st.err == nil {
			t.Fatalf("%q: shown alone (%T)", bad, cmd())
		}
	}
	if cmd := m.signin.showURLAlone(&grantFlow{url: u}); cmd == nil {
		t.Fatal("no command for a plain URL")
	} else if _, isStatus := cmd().(statusMsg); isStatus {
		t.Fatal("a plain URL was refused")
	}
}

// TestMemoryOnlySignInsSaySo: the demo keeps sign-ins in memory only and
// nothing said so (issue 22, item 15). The granted message and the
// sign-ins sheet say it there; a store on disk says nothing of the kind.
func TestMemoryOnlySignInsSaySo(t *testing.T) {
	for _, memory := range []bool{true, false} {
		rig := newSignInRig(t)
		auth := rig.auth()
		if memory {
			auth = newAuth(t)
		}
		d := newDriverOn(t, rig.host(), auth)
		_, g := startGitHubSignIn(d)
		approveInBrowser(t, g.url)
		d.until("GitHub ready", githubReady(d))
		d.until("granted said", func() bool { return strings.HasPrefix(d.m.status.text, "access granted") })
		if got := strings.Contains(d.m.status.text, "memory only"); got != memory {
			t.Fatalf("memory-only store %v: the granted message is %q", memory, d.m.status.text)
		}
		d.keys("S")
		if got := screenHas(d.m, "kept in memory only"); got != memory {
			t.Fatalf("memory-only store %v: the sheet says so %v:\n%s", memory, got, ansi.Strip(d.m.Render()))
		}
	}
}
