// Command trustaskd is the hostile host's trust-question scenario (issue
// 21, finding 1) for internal/e2e, which runs the real ahptui against it
// in a terminal. It serves hostilehost's sample root, session and chat on
// 127.0.0.1 with nothing poisoned, so the user can type in the chat's
// composer.
//
// It prints the ws:// URL to dial on the first line of stdout. A line
// "advertise RESOURCE ISSUER" on stdin announces that the agent needs a
// token for RESOURCE issued by ISSUER (root/agentsChanged) and answers
// "advertised" on stdout; every authenticate request it receives prints
// "authenticate RESOURCE". It serves until its stdin closes.
//
// With -claimed-terminal it also lists a terminal held by the client that
// connects (hostilehost.ClaimTerminalFor: the user may type into it) and
// prints "input DATA" (DATA Go-quoted) for every terminal/input action the
// client dispatches to it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/ahptui/ahptui/protocol/internal/hostilehost"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

func main() {
	claimed := flag.Bool("claimed-terminal", false, "list a terminal held by the connecting client and print what is typed into it")
	flag.Parse()
	var mu sync.Mutex
	say := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf(format+"\n", a...)
	}
	sessions := json.RawMessage(`{"items":[{"resource":"ahp-session:/hostile","provider":"p",` +
		`"title":"Session title","status":1,"createdAt":"1970-01-01T00:00:01.000Z","modifiedAt":"1970-01-01T00:00:02.000Z"}]}`)
	// h is set before the URL is printed, so before any client connects.
	var h *hostilehost.Host
	var tap func(int64, string, []byte)
	if *claimed {
		tap = func(_ int64, dir string, frame []byte) {
			if ch, data, ok := hostilehost.TerminalInput(frame); ok && dir == hostilehost.Inbound && ch == hostilehost.ClaimedTerminalURI {
				say("input %q", data)
			}
		}
	}
	h, err := hostilehost.Start(hostilehost.Config{
		States: map[string]json.RawMessage{
			hostilehost.RootChannel: hostilehost.SampleRoot,
			"ahp-session:/hostile":  hostilehost.SampleSession,
			"ahp-chat:/hostile":     hostilehost.SampleChat,
		},
		ServerSeq: 10,
		Tap:       tap,
		Answer: func(_ *hostilehost.Conn, req *jsonrpc.Request) (any, *jsonrpc.Error, bool) {
			switch req.Method {
			case "initialize":
				if *claimed {
					if err := h.ClaimTerminalFor(hostilehost.InitializeClientID(req)); err != nil {
						fmt.Fprintln(os.Stderr, err)
					}
				}
			case "listSessions":
				return sessions, nil, true
			case "authenticate":
				var p struct {
					Resource string `json:"resource"`
				}
				_ = json.Unmarshal(req.Params, &p)
				say("authenticate %s", p.Resource)
			}
			return nil, nil, false
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	say("%s", h.URL())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) == 3 && f[0] == "advertise" {
			if err := h.AdvertiseProtectedResource(context.Background(), f[1], f[2]); err != nil {
				fmt.Fprintln(os.Stderr, err)
				continue
			}
			say("advertised")
		}
	}
	_ = h.Close()
}
