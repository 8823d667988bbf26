// Command floor is the least a one-shot AHP command can do: open a
// WebSocket to the host, send initialize (subscribing to the root
// channel, as status does), read its answer and exit. BenchmarkCLIStartup
// times ahptui's commands against it: the same Go runtime start, the same
// TCP connect and upgrade and one request's round trip, and nothing else,
// so the ratio is what ahptui adds on top.
//
// Usage: floor ws://127.0.0.1:PORT/
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/coder/websocket"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor ws://HOST:PORT/")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := run(ctx, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, url string) error {
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return err
	}
	defer c.CloseNow()
	req, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{
			"protocolVersions":     []string{"1.0.0"},
			"clientId":             "0123456789abcdef0123456789abcdef",
			"initialSubscriptions": []string{"ahp-root://"},
		},
	})
	if err := c.Write(ctx, websocket.MessageText, req); err != nil {
		return err
	}
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return err
		}
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		if m.ID == nil || *m.ID != 1 {
			continue // a notification
		}
		if m.Error != nil {
			return fmt.Errorf("initialize: %s", m.Error)
		}
		os.Stdout.Write(append(m.Result[:len(m.Result):len(m.Result)], '\n'))
		return c.Close(websocket.StatusNormalClosure, "")
	}
}
