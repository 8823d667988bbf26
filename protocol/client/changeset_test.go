package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/client"
)

// TestReadContentBounded: a ContentRef is read with resourceRead, and
// content over the cap is refused, by its size hint before the request
// and by its real size after it (a hint may lie or be absent).
func TestReadContentBounded(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := demohost.Start(ctx, demohost.Config{StepDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	c, err := client.Dial(ctx, client.Options{URL: h.URL(), ClientID: "read-content-test", ClientInfo: protocol.Implementation{Name: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Subscribe(ctx, demohost.ChangesetSessionURI); err != nil {
		t.Fatal(err)
	}
	st, _ := c.State(demohost.ChangesetSessionURI)
	ref := st.(protocol.ChangesetState).Files[1].Edit.After.Content // the created file
	text, err := c.ReadContent(ctx, ref, 1<<20)
	if err != nil || !strings.Contains(text, "func waitStatus") {
		t.Fatalf("ReadContent = %q, %v", text, err)
	}
	if _, err := c.ReadContent(ctx, ref, 10); !errors.Is(err, client.ErrContentTooLarge) {
		t.Errorf("over the cap by its hint: %v", err)
	}
	unhinted := protocol.ContentRef{URI: ref.URI}
	if _, err := c.ReadContent(ctx, unhinted, 10); !errors.Is(err, client.ErrContentTooLarge) {
		t.Errorf("over the cap, no hint: %v", err)
	}
	var hostErr error
	if _, hostErr = c.ReadContent(ctx, protocol.ContentRef{URI: "ahp-demo-content:/nope"}, 10); hostErr == nil {
		t.Error("unknown content read")
	}
}
