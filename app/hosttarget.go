package app

import (
	"context"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/open"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/ui"
)

// spec is the host o names, in the form host/pick (shared with the
// scriptable commands) resolves.
func (o options) spec() pick.Spec {
	return pick.Spec{Host: o.host, TokenFile: o.tokenFile, Saved: o.saved, SavedViaHost: o.savedViaHost,
		Insecure: o.insecure, Demo: o.demo, ConfigDir: o.configDir}
}

// hostTarget is the host --host names, with its connection token (see
// pick.URLTarget).
func hostTarget(o options, getenv func(string) string) (dial.Target, error) {
	return pick.URLTarget(o.spec(), getenv)
}

// savedTarget is the saved host o names (see pick.SavedTarget).
func savedTarget(o options) (dial.Target, error) { return pick.SavedTarget(o.spec()) }

// configDir is --config-dir, else the user config dir + /ahptui.
func configDir(o options) (string, error) { return pick.ConfigDir(o.configDir) }

// checkHostURL and checkHostTransport are host/pick's checks of --host.
func checkHostURL(raw string) error { return pick.CheckURL(raw) }
func checkHostTransport(raw string, insecure bool) error {
	return pick.CheckTransport(raw, insecure)
}

// connectVia is the UI's Connect for target, opened by run (the
// opening every command shares): one attempt gives up after
// dial.AttemptTimeout, the token stays in the dialer and out of the
// error, and the log keeps the failure whole.
func connectVia(run *open.Run, target dial.Target) func(ctx context.Context) (ui.Client, error) {
	return func(ctx context.Context) (ui.Client, error) {
		c, err := run.Dial(ctx, target, target.Name)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}
