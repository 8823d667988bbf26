// Command hostilehostd serves the hostile host's sample root, session and
// chat states, every text field poisoned with every hostilehost.Escapes
// payload (raw and as character references), on 127.0.0.1. It exists for
// internal/e2e, which runs the real ahptui binary against it in a terminal:
// Go's internal rule keeps internal/e2e from importing hostilehost, so the
// host runs as its own process.
//
// It prints the ws:// URL to dial on the first line of stdout and serves
// until it is killed or its stdin closes.
//
// -scenario endless-sessions answers listSessions with pages of fresh
// sessions and fresh cursors forever (hostilehost.EndlessSessions);
// -scenario shell-ids serves one session whose tool call id is shell
// syntax and whose title carries C1 and bidi characters
// (hostilehost.ShellIDs), on AHP 1.0.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ahptui/ahptui/protocol/internal/hostilehost"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// The channels of hostilehost's sample states.
const (
	rootChannel    = "ahp-root://"
	sessionChannel = "ahp-session:/hostile"
	chatChannel    = "ahp-chat:/hostile"
)

func main() {
	scenario := flag.String("scenario", "", `what else the host does: "endless-sessions" or "shell-ids"`)
	flag.Parse()
	var endless *hostilehost.EndlessSessions
	switch *scenario {
	case "":
	case "endless-sessions":
		endless = &hostilehost.EndlessSessions{PerPage: 200, TitleBytes: 64}
	case "shell-ids":
	default:
		fmt.Fprintf(os.Stderr, "hostilehostd: unknown -scenario %q\n", *scenario)
		os.Exit(2)
	}
	if *scenario == "shell-ids" {
		shellIDs()
		return
	}
	payload := hostilehost.AllEscapes()
	// listSessions gets the same poison as the states (as in the client's
	// TestHostileStrings), so the session list is hostile too.
	sessions := hostilehost.Taint(json.RawMessage(`{"items":[{"resource":"`+sessionChannel+`","provider":"p",`+
		`"title":"Session title","status":1,"createdAt":"1970-01-01T00:00:01.000Z","modifiedAt":"1970-01-01T00:00:02.000Z"}]}`), payload)
	h, err := hostilehost.Start(hostilehost.Config{
		States: map[string]json.RawMessage{
			rootChannel: hostilehost.Taint(hostilehost.SampleRootWithTerminal, payload),
			// The terminal's stream is HostileTerminalOutput; its title,
			// command line and output carry every payload.
			hostilehost.SampleTerminalURI: hostilehost.TaintedTerminal(payload),
			sessionChannel:                hostilehost.Taint(hostilehost.SampleSession, payload),
			chatChannel:                   hostilehost.Taint(hostilehost.SampleChat, payload),
		},
		ServerSeq: 10,
		Answer: func(_ *hostilehost.Conn, req *jsonrpc.Request) (any, *jsonrpc.Error, bool) {
			if req.Method == "listSessions" {
				if endless != nil {
					return endless.Answer(nil, req)
				}
				return sessions, nil, true
			}
			return nil, nil, false
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(h.URL())
	// The test holds our stdin: when it ends (or dies), so do we, and no
	// host outlives a crashed test.
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = h.Close()
}

// shellIDs serves the shell-ids scenario (hostilehost.ShellIDs) on AHP
// 1.0 until stdin closes.
func shellIDs() {
	sessions, states := hostilehost.ShellIDs()
	h, err := hostilehost.Start(hostilehost.Config{States: states, ServerSeq: 10, ProtocolVersion: "1.0.0",
		Answer: func(_ *hostilehost.Conn, req *jsonrpc.Request) (any, *jsonrpc.Error, bool) {
			if req.Method == "listSessions" {
				return sessions, nil, true
			}
			return nil, nil, false
		}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(h.URL())
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = h.Close()
}
