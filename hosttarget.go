package main

import (
	"context"
	"log/slog"

	"github.com/ahptui/ahptui/hostconn"
	"github.com/ahptui/ahptui/hostpick"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/ui"
	"github.com/ahptui/ahptui/wiretrace"
)

// spec is the host o names, in the form hostpick (shared with the
// scriptable commands) resolves.
func (o options) spec() hostpick.Spec {
	return hostpick.Spec{Host: o.host, TokenFile: o.tokenFile, Saved: o.saved, SavedViaHost: o.savedViaHost,
		Insecure: o.insecure, Demo: o.demo, ConfigDir: o.configDir}
}

// hostTarget is the host --host names, with its connection token (see
// hostpick.URLTarget).
func hostTarget(o options, getenv func(string) string) (hostconn.Target, error) {
	return hostpick.URLTarget(o.spec(), getenv)
}

// savedTarget is the saved host o names (see hostpick.SavedTarget).
func savedTarget(o options) (hostconn.Target, error) { return hostpick.SavedTarget(o.spec()) }

// configDir is --config-dir, else the user config dir + /ahptui.
func configDir(o options) (string, error) { return hostpick.ConfigDir(o.configDir) }

// checkHostURL and checkHostTransport are hostpick's checks of --host.
func checkHostURL(raw string) error { return hostpick.CheckURL(raw) }
func checkHostTransport(raw string, insecure bool) error {
	return hostpick.CheckTransport(raw, insecure)
}

// connectTo is the UI's Connect for target: one attempt gives up after
// hostconn.AttemptTimeout, and the token stays in the dialer.
func connectTo(target hostconn.Target, clientID string, info protocol.Implementation, logger *slog.Logger) func(ctx context.Context) (ui.Client, error) {
	return connectTraced(target, clientID, info, logger, nil)
}

// connectTraced is connectTo with every frame recorded in trace (--trace),
// when there is one.
func connectTraced(target hostconn.Target, clientID string, info protocol.Implementation, logger *slog.Logger, trace *wiretrace.Trace) func(ctx context.Context) (ui.Client, error) {
	return func(ctx context.Context) (ui.Client, error) {
		opts := hostpick.ClientOptions(target, clientID, info, logger)
		if trace != nil {
			opts.Dial = trace.Dial(opts.Dial)
		}
		c, err := client.Dial(ctx, opts)
		if err != nil {
			// A host may echo what it was sent; nothing it says may put
			// the token on screen or in the log.
			err = target.ScrubError(err)
			// The screen shows the error too, but cut to its width;
			// the log keeps it whole, with when it happened.
			logger.Warn("connect failed", "host", target.URL, "error", err.Error())
			return nil, err
		}
		return c, nil
	}
}
