package demohost

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	hostdial "github.com/ahptui/ahptui/host/dial"
)

// TestUnixSocketAndConnectionToken: the demo host can stand in for VS
// Code's: it serves on a Unix socket as well as TCP, and with a
// connection token it answers an upgrade without it, or with a wrong
// one, 403.
func TestUnixSocketAndConnectionToken(t *testing.T) {
	dir, err := os.MkdirTemp("", "dh")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "h.sock")
	h, err := Start(t.Context(), Config{UnixSocket: sock, ConnectionToken: "right", NoDemoSession: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	tcp, err := hostdial.Parse(h.URL())
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		target hostdial.Target
		ok     bool
	}{
		"tcp, token":       {tcp.WithToken("right"), true},
		"tcp, no token":    {tcp, false},
		"tcp, wrong token": {tcp.WithToken("wrong"), false},
		"socket, token":    {hostdial.Unix(sock, "right"), true},
		"socket, no token": {hostdial.Unix(sock, ""), false},
	} {
		tp, err := tc.target.Dial(context.Background(), 0)
		if tc.ok {
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			tp.Close("")
			continue
		}
		var de *hostdial.DialError
		if !errors.As(err, &de) || de.Status != 403 {
			t.Errorf("%s: %v, want HTTP 403", name, err)
		}
	}
}
