package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ahptui/ahptui/hostconn"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
	"github.com/ahptui/ahptui/ui"
)

// hostTarget is the host --host names, with its connection token taken
// from --connection-token-file, else the URL's ?tkn=, else
// AHPTUI_CONNECTION_TOKEN (the file and the variable keep the secret out
// of shell history and `ps`).
func hostTarget(o options, getenv func(string) string) (hostconn.Target, error) {
	t, err := hostconn.Parse(o.host)
	if err != nil {
		return t, fmt.Errorf("--host: %w", err)
	}
	switch {
	case o.tokenFile != "":
		tok, err := hostconn.ReadTokenFile(o.tokenFile)
		if err != nil {
			return t, err
		}
		t = t.WithToken(tok)
	case !t.HasToken():
		t = t.WithToken(getenv(hostconn.TokenEnv))
	}
	return t, nil
}

// connectTo is the UI's Connect for target: the client names the host by
// its token-free URL, the dialer alone sends the token, and one attempt
// gives up after hostconn.AttemptTimeout.
func connectTo(target hostconn.Target, clientID string, info protocol.Implementation, logger *slog.Logger) func(ctx context.Context) (ui.Client, error) {
	return func(ctx context.Context) (ui.Client, error) {
		c, err := client.Dial(ctx, client.Options{
			URL:              target.URL,
			Dial:             target.Dialer(jsonrpc.DefaultReadLimit),
			HandshakeTimeout: hostconn.AttemptTimeout,
			ClientID:         clientID,
			ClientInfo:       info,
			Logger:           logger.With("component", "protocol"),
		})
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

// errTokenFileWithoutHost refuses a connection token file where no host
// is named to send it to: the demo takes none, and a discovered host
// publishes its own.
var errTokenFileWithoutHost = errors.New("--connection-token-file applies to --host or a saved host's name; the demo and discovered hosts bring their own")
