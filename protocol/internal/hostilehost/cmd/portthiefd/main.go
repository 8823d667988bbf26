// Command portthiefd is the hostile host's registry scenario (issue 21
// security review, finding 3) for internal/e2e, which runs the real
// ahptui against it in a terminal: started as root with -uid, it becomes
// that user, then takes -addr (the port a registry host had, once it
// died) with hostilehost.PortThief.
//
// It prints "ready" once it listens, then a line for each event: "conn"
// (a TCP connection), "token" (an upgrade carrying ?tkn=) and
// "authenticate" (a sign-in pushed to it). It serves until its stdin
// closes.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/ahptui/ahptui/protocol/internal/hostilehost"
)

func main() {
	addr := flag.String("addr", "", "127.0.0.1:PORT to take")
	uid := flag.Int("uid", -1, "the user (and group) to become before listening")
	flag.Parse()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "portthiefd:", err)
		os.Exit(1)
	}
	if *uid >= 0 {
		for _, err := range []error{syscall.Setgroups(nil), syscall.Setgid(*uid), syscall.Setuid(*uid)} {
			if err != nil {
				fail(err)
			}
		}
	}
	var mu sync.Mutex
	say := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Println(s)
	}
	p, err := hostilehost.StartPortThief(*addr, map[string]json.RawMessage{hostilehost.RootChannel: hostilehost.SampleRoot}, say)
	if err != nil {
		fail(err)
	}
	say("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = p.Close()
}
