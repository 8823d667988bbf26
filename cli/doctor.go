package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/open"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/host/registry"
	"github.com/ahptui/ahptui/host/ssh"
	"github.com/ahptui/ahptui/protocol/client"
)

// checkJSON is one check of `ahptui doctor`.
type checkJSON struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn, fail
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"` // how to fix a warn or fail
}

const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "fail"
)

func doctorCmd(a *app) *cobra.Command {
	var callbackPort int
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "check host, registry, config dir, sign-in, terminal; how to fix",
		Long: `Checks, in order: the host the flags name (resolved, reached, the
upgrade's HTTP status, the AHP version agreed), VS Code's registry
entries, the config directory's and token file's permissions, the OS
keyring, a free callback port, a browser, the terminal's colours, and
the clock against saved sign-ins. Exits 0 when nothing fails, else with
the first failure's code (3 for the host, 4 for a version refusal).`,
		Args: args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			checks, code := a.doctor(cmd.Context(), callbackPort)
			if err := a.emit(map[string]any{"checks": checks}, func(w io.Writer) { a.printChecks(w, checks) }); err != nil {
				return err
			}
			if code != ExitOK {
				return withCode(code, errors.New("doctor found a problem (see above)"))
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&callbackPort, "callback-port", 0, "the fixed callback `PORT` to check (default: any free one)")
	return cmd
}

func (a *app) printChecks(w io.Writer, cs []checkJSON) {
	for _, c := range cs {
		mark := map[string]string{checkOK: a.paint(sgrGreen, "ok  "), checkWarn: a.paint(sgrYellow, "warn"), checkFail: a.paint(sgrRed, "FAIL")}[c.Status]
		fmt.Fprintf(w, "%s  %s: %s\n", mark, c.Name, hostText(c.Detail))
		if c.Fix != "" {
			fmt.Fprintf(w, "      fix: %s\n", hostText(c.Fix))
		}
	}
}

// doctor runs every check; code is the first failure's exit code.
func (a *app) doctor(ctx context.Context, callbackPort int) ([]checkJSON, int) {
	var out []checkJSON
	code := ExitOK
	add := func(c checkJSON, failCode int) {
		out = append(out, c)
		if c.Status == checkFail && code == ExitOK {
			code = failCode
		}
	}
	a.checkConfig(ctx, add)
	a.checkHost(ctx, add)
	reg := registry.Discover(pick.RegistryEnv(), registry.Alive)
	regCheck := checkJSON{Name: "registry", Status: checkOK, Detail: fmt.Sprintf("%d live agent host(s) listed by VS Code", len(reg.Entries))}
	if len(reg.Skipped) > 0 {
		regCheck.Status, regCheck.Detail = checkWarn, regCheck.Detail+"; ignored: "+strings.Join(reg.Skipped, "; ")
		regCheck.Fix = "remove the stale entries, or make the registry directory owner-only (chmod 700)"
	}
	add(regCheck, ExitFailure)
	add(checkCallbackPort(callbackPort), ExitSignIn)
	add(checkBrowser(a.Getenv), ExitSignIn)
	add(a.checkTerminal(), ExitFailure)
	return out, code
}

// checkHost resolves, reaches and initializes the host the flags name.
func (a *app) checkHost(ctx context.Context, add func(checkJSON, int)) {
	if a.demo {
		add(checkJSON{Name: "host", Status: checkOK, Detail: "--demo: the built-in demo host"}, ExitOK)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	s, err := a.spec()
	if err == nil && ssh.IsSSH(s.Host) {
		a.checkSSH(ctx, s, add)
		return
	}
	if err == nil {
		var target dial.Target
		if target, err = pick.Resolve(s, a.Getenv, strings.NewReader(""), io.Discard); err == nil {
			add(checkJSON{Name: "host", Status: checkOK, Detail: "resolved to " + target.URL}, ExitUnreachable)
			a.checkReach(ctx, target, add)
			return
		}
	}
	add(checkJSON{Name: "host", Status: checkFail, Detail: err.Error(),
		Fix: "pass --host ws://HOST:PORT/ (or a saved name), start `code agent host`, or try --demo"}, ExitUnreachable)
}

// checkSSH checks an ssh:// host's path, each step its own check: the
// ssh binary, the box in BatchMode (host key, login), the registry or
// VS Code's CLI on it, then the endpoint (checkReach: the upgrade inside
// ssh, the version).
func (a *app) checkSSH(ctx context.Context, s pick.Spec, add func(checkJSON, int)) {
	addr, err := ssh.Parse(s.Host)
	if err != nil {
		add(checkJSON{Name: "host", Status: checkFail, Detail: err.Error(), Fix: "give --host " + ssh.Form}, ExitUsage)
		return
	}
	r, err := ssh.NewRunner(a.Getenv)
	if err == nil {
		var path string
		if path, err = r.Path(); err == nil {
			add(checkJSON{Name: "ssh", Status: checkOK, Detail: "ssh is " + path}, ExitFailure)
		}
	}
	if err != nil {
		add(checkJSON{Name: "ssh", Status: checkFail, Detail: err.Error(), Fix: "install OpenSSH's client, or set " + ssh.CommandEnv}, ExitFailure)
		return
	}
	fail := func(name string, err error, fix string) {
		phrase, ok := dial.Explain(err, a.timeout)
		if !ok {
			phrase = err.Error()
		}
		add(checkJSON{Name: name, Status: checkFail, Detail: phrase, Fix: fix}, exitCode(err))
	}
	if addr, err = r.Resolve(ctx, addr); err != nil {
		fail("box", err, "check the box's name in your ssh config (ssh -G)")
		return
	}
	res, err := r.Discover(ctx, addr)
	if err != nil {
		fail("box", err, "run ssh "+addr.Host+" on a terminal: it must log in without a prompt (a key or an agent) and know the box's host key")
		return
	}
	add(checkJSON{Name: "box", Status: checkOK, Detail: addr.Box() + " reached in BatchMode"}, ExitUnreachable)
	hs := ssh.Hosts(addr, res)
	if len(hs) == 0 {
		fail("remote registry", ssh.NoHost(addr, res), "start an agent host on the box (code agent host), or repair its registry")
		return
	}
	how := fmt.Sprintf("the box's registry lists %d live agent host(s)", len(hs))
	if res.FromCLI {
		how = fmt.Sprintf("code agent endpoints lists %d live agent host(s); reached by code agent relay", len(hs))
	}
	add(checkJSON{Name: "remote registry", Status: checkOK, Detail: how}, ExitNoRemote)
	target := r.Target(hs[0])
	add(checkJSON{Name: "host", Status: checkOK, Detail: "resolved to " + target.URL}, ExitUnreachable)
	a.checkReach(ctx, target, add)
}

func (a *app) checkReach(ctx context.Context, target dial.Target, add func(checkJSON, int)) {
	tp, err := target.Dial(ctx, 0)
	var de *dial.DialError
	switch {
	case errors.As(err, &de):
		fix := "check the address and that the host runs"
		if de.Kind == dial.ErrHTTPStatus && de.Status == http.StatusForbidden {
			fix = "an HTTP 403 means a wrong or missing connection token: pass --connection-token-file or ?tkn="
		}
		// The same code every other command gives this failure: a 403 is
		// a refused token (11), not a host that is down (3).
		add(checkJSON{Name: "reach", Status: checkFail, Detail: de.Short() + " (" + target.URL + ")", Fix: fix}, exitCode(err))
		return
	case err != nil:
		add(checkJSON{Name: "reach", Status: checkFail, Detail: target.ScrubError(err).Error(), Fix: "check the address and that the host runs"}, ExitUnreachable)
		return
	}
	_ = tp.Close("ahptui doctor")
	add(checkJSON{Name: "reach", Status: checkOK, Detail: "the WebSocket upgrade succeeded (HTTP 101)"}, ExitUnreachable)
	// The opening every command runs (host/open), as a probe: a client
	// id of its own, for doctor reads the config dir and never writes it;
	// --trace records the handshake the fix below points to.
	run, err := open.Start(open.Config{ConfigDir: a.configDir, Trace: a.trace, Version: a.Version, Probe: true})
	if err != nil {
		add(checkJSON{Name: "version", Status: checkFail, Detail: err.Error(), Fix: "pass a --trace FILE that can be written"}, ExitUsage)
		return
	}
	defer run.Close()
	c, err := run.Dial(ctx, target, target.Name)
	var ve *client.UnsupportedProtocolVersionError
	switch {
	case errors.As(err, &ve):
		add(checkJSON{Name: "version", Status: checkFail, Detail: ve.Summary(), Fix: "use an ahptui that speaks one of the host's versions, or update the host"}, ExitVersion)
	case err != nil:
		add(checkJSON{Name: "version", Status: checkFail, Detail: err.Error(), Fix: "run with --trace FILE to see the handshake"}, exitCode(err))
	default:
		add(checkJSON{Name: "version", Status: checkOK, Detail: "AHP " + c.ProtocolVersion() + " agreed"}, ExitVersion)
		c.Close()
	}
}

// checkConfig: the config dir and the token file are the user's alone,
// and whether the OS keyring answers.
func (a *app) checkConfig(ctx context.Context, add func(checkJSON, int)) {
	dir, err := pick.ConfigDir(a.configDir)
	if err != nil {
		add(checkJSON{Name: "config", Status: checkFail, Detail: err.Error(), Fix: "pass --config-dir"}, ExitFailure)
		return
	}
	fi, err := os.Lstat(dir)
	private := err == nil && fi.IsDir() && fi.Mode().Perm()&0o077 == 0
	switch {
	case errors.Is(err, os.ErrNotExist):
		add(checkJSON{Name: "config", Status: checkOK, Detail: dir + " does not exist yet; the first run creates it owner-only"}, ExitFailure)
	case err != nil:
		add(checkJSON{Name: "config", Status: checkFail, Detail: err.Error(), Fix: "pass a --config-dir you can read"}, ExitFailure)
	case fi.Mode()&os.ModeSymlink != 0 || fi.Mode().Perm()&0o077 != 0:
		add(checkJSON{Name: "config", Status: checkFail, Detail: fmt.Sprintf("%s is %v: others could read tokens or plant answers", dir, fi.Mode()),
			Fix: "chmod 700 " + dir + " (and make it a real directory, not a link)"}, ExitFailure)
	default:
		add(checkJSON{Name: "config", Status: checkOK, Detail: dir + " is owner-only"}, ExitFailure)
	}
	for _, name := range []string{"oauth-tokens.json", "hosts.yml"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Lstat(p); err == nil && (fi.Mode()&os.ModeSymlink != 0 || fi.Mode().Perm()&0o077 != 0) {
			add(checkJSON{Name: "permissions", Status: checkFail, Detail: fmt.Sprintf("%s is %v", p, fi.Mode()), Fix: "chmod 600 " + p}, ExitFailure)
		}
	}
	if !private {
		// Opening the store would repair the directory; doctor only looks.
		return
	}
	auth, err := authpkce.New(authpkce.Config{Dir: dir, TokenStore: authpkce.TokenStoreKeyring})
	if err != nil {
		add(checkJSON{Name: "keyring", Status: checkWarn, Detail: err.Error(), Fix: "tokens stay in the 0600 file (--token-store file)"}, ExitFailure)
		return
	}
	if kind, why := auth.TokenStore(); why != nil {
		add(checkJSON{Name: "keyring", Status: checkWarn, Detail: "no OS keyring here (" + strings.Join(strings.Fields(why.Error()), " ") + "); tokens go to " + kind,
			Fix: "start a Secret Service (e.g. gnome-keyring) to keep tokens out of files, or keep --token-store file"}, ExitFailure)
	} else {
		add(checkJSON{Name: "keyring", Status: checkOK, Detail: "the OS keyring answers"}, ExitFailure)
	}
	now := time.Now()
	for _, g := range auth.Grants() {
		if g.UpdatedAt.After(now.Add(5 * time.Minute)) {
			add(checkJSON{Name: "clock", Status: checkWarn, Detail: "a saved sign-in for " + g.Resource + " was saved " + g.UpdatedAt.Sub(now).Round(time.Second).String() + " in the future",
				Fix: "set the clock right (NTP); token expiry is judged by it"}, ExitFailure)
			return
		}
	}
	if c, ok := checkClock(ctx, auth.Grants(), &http.Client{Timeout: 5 * time.Second}); ok {
		add(c, ExitFailure)
	}
}

// clockSkewWarn is how far this clock may be from an authorization
// server's before doctor says so: a token's expiry is the server's time,
// judged here by this clock.
const clockSkewWarn = time.Minute

// checkClock compares this clock with the Date header of the saved
// sign-ins' authorization servers (at most three), which set the tokens'
// expiry. ok is false when there is nothing to compare (no saved
// sign-in, no server answered with a date).
func checkClock(ctx context.Context, grants []authpkce.StoredGrant, hc *http.Client) (checkJSON, bool) {
	seen := map[string]bool{}
	var asked []string
	for _, g := range grants {
		if g.Issuer == "" || seen[g.Issuer] || len(seen) == 3 {
			continue
		}
		seen[g.Issuer] = true
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, g.Issuer, nil)
		if err != nil {
			continue
		}
		sent := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			asked = append(asked, g.Issuer)
			continue
		}
		resp.Body.Close()
		theirs, err := http.ParseTime(resp.Header.Get("Date"))
		if err != nil {
			asked = append(asked, g.Issuer)
			continue
		}
		// The server stamped its Date somewhere between sending and
		// receiving: compare with the middle, to the header's second.
		back := time.Now()
		mine := sent.Add(back.Sub(sent) / 2)
		skew := mine.Sub(theirs).Round(time.Second)
		switch {
		case skew > clockSkewWarn:
			return checkJSON{Name: "clock", Status: checkWarn,
				Detail: fmt.Sprintf("this clock is %v ahead of %s's, which set the saved tokens' expiry: they look expired %v early", skew, g.Issuer, skew),
				Fix:    "set the clock right (NTP)"}, true
		case skew < -clockSkewWarn:
			return checkJSON{Name: "clock", Status: checkWarn,
				Detail: fmt.Sprintf("this clock is %v behind %s's, which set the saved tokens' expiry: they are used up to %v after they expired, and refused", -skew, g.Issuer, -skew),
				Fix:    "set the clock right (NTP)"}, true
		}
		return checkJSON{Name: "clock", Status: checkOK, Detail: fmt.Sprintf("agrees with %s's, which set the saved tokens' expiry (within %v)", g.Issuer, clockSkewWarn)}, true
	}
	if len(asked) > 0 {
		return checkJSON{Name: "clock", Status: checkWarn, Detail: "no authorization server of a saved sign-in gave its time (" + strings.Join(asked, ", ") + "): the clock is not checked",
			Fix: "check again when the server is reachable"}, true
	}
	return checkJSON{}, false
}

func checkCallbackPort(port int) checkJSON {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return checkJSON{Name: "callback", Status: checkFail, Detail: "cannot listen on " + addr + ": " + err.Error(),
			Fix: "free the port or pick another --callback-port"}
	}
	defer l.Close()
	return checkJSON{Name: "callback", Status: checkOK, Detail: "the sign-in callback can listen on " + l.Addr().String()}
}

func checkBrowser(getenv func(string) string) checkJSON {
	if b := getenv("BROWSER"); b != "" {
		return checkJSON{Name: "browser", Status: checkOK, Detail: "$BROWSER is " + b}
	}
	for _, name := range []string{"xdg-open", "open", "wslview", "sensible-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return checkJSON{Name: "browser", Status: checkOK, Detail: "opens sign-ins with " + p}
		}
	}
	return checkJSON{Name: "browser", Status: checkWarn, Detail: "no browser opener found (no $BROWSER, xdg-open or open)",
		Fix: "sign-in URLs are shown to copy (--no-browser); set $BROWSER to open them"}
}

// checkTerminal reports what the environment says the terminal can do:
// its colours (COLORTERM, TERM), and whether copy (OSC 52) and links
// (OSC 8), which the UI sends, get through. A terminal does not answer
// for those, so they are read off what is known: inside tmux, OSC 52
// reaches the outer terminal only with set-clipboard on (asked of tmux
// itself through tmuxOption), and screen passes neither.
func (a *app) checkTerminal() checkJSON {
	return terminalCheck(a.Getenv, tmuxOption)
}

// tmuxOption is a global tmux option's value, "" when tmux does not say.
func tmuxOption(name string) string {
	out, err := exec.Command("tmux", "show-options", "-gv", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func terminalCheck(getenv func(string) string, tmuxOpt func(string) string) checkJSON {
	term, colorterm := getenv("TERM"), getenv("COLORTERM")
	colours := "16 colours"
	switch {
	case getenv("NO_COLOR") != "":
		colours = "no colours (NO_COLOR is set)"
	case colorterm == "truecolor" || colorterm == "24bit":
		colours = "24-bit colour"
	case strings.Contains(term, "256color"):
		colours = "256 colours"
	}
	detail := fmt.Sprintf("TERM=%s COLORTERM=%s: %s", term, colorterm, colours)
	switch {
	case term == "" || term == "dumb":
		return checkJSON{Name: "terminal", Status: checkWarn, Detail: detail + "; not a terminal that draws the UI",
			Fix: "run in a terminal with TERM set (e.g. xterm-256color)"}
	case getenv("TMUX") != "":
		switch clip := tmuxOpt("set-clipboard"); clip {
		case "off":
			return checkJSON{Name: "terminal", Status: checkWarn, Detail: detail + "; inside tmux with set-clipboard off: copy (OSC 52) stops at tmux",
				Fix: "tmux set -g set-clipboard on (and, for links (OSC 8), tmux 3.4 or later)"}
		case "":
			detail += "; inside tmux, whose set-clipboard is unknown: copy (OSC 52) needs it on"
		default:
			detail += "; inside tmux with set-clipboard " + clip + ": copy (OSC 52) reaches the terminal"
		}
		return checkJSON{Name: "terminal", Status: checkOK, Detail: detail + "; links (OSC 8) need tmux 3.4 or later"}
	case getenv("STY") != "" || strings.HasPrefix(term, "screen"):
		return checkJSON{Name: "terminal", Status: checkWarn, Detail: detail + "; inside screen, which passes neither copy (OSC 52) nor links (OSC 8)",
			Fix: "run ahptui outside screen (or in tmux with set-clipboard on) to copy and follow links"}
	}
	return checkJSON{Name: "terminal", Status: checkOK, Detail: detail + "; copy (OSC 52) and links (OSC 8) are sent, and the terminal does not say whether it honours them"}
}
