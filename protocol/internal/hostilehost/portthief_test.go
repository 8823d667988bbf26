package hostilehost_test

import (
	"context"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol/internal/hostilehost"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// TestPortThiefCounts: the thief counts what a trusting client gives it
// — the connection, the ?tkn= on the upgrade and an authenticate.
func TestPortThiefCounts(t *testing.T) {
	events := make(chan string, 8)
	p, err := hostilehost.StartPortThief("127.0.0.1:0", nil, func(e string) { events <- e })
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tp, err := jsonrpc.Dial(ctx, p.URL()+"?tkn=stolen", jsonrpc.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close("")
	if err := tp.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"authenticate","params":{"resource":"r","token":"t"}}`)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"conn", "token", "authenticate"} {
		select {
		case got := <-events:
			if got != want {
				t.Fatalf("event %q, want %q", got, want)
			}
		case <-ctx.Done():
			t.Fatalf("no %q event", want)
		}
	}
	if p.Connections() != 1 || p.Tokens() != 1 || p.Authenticates() != 1 {
		t.Errorf("counts %d %d %d, want 1 1 1", p.Connections(), p.Tokens(), p.Authenticates())
	}
}
