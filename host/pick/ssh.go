package pick

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/ssh"
	"github.com/ahptui/ahptui/views"
)

// SSHHosts are the agent hosts on the box an ssh:// URL names (the one
// its path names, if it names one), each a target dialled over ssh
// (host/ssh). ask lets ssh ask on the terminal (a host key, a password):
// the UI's look before its screen opens; otherwise ssh runs in
// BatchMode and an unknown host key is an error. Every failure is a
// *dial.DialError of a named kind.
func SSHHosts(raw string, getenv func(string) string, ask bool, stderr io.Writer) ([]ssh.Host, ssh.Runner, error) {
	a, err := ssh.Parse(raw)
	if err != nil {
		return nil, ssh.Runner{}, err
	}
	r, err := ssh.NewRunner(getenv)
	if err != nil {
		return nil, r, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if a, err = r.Resolve(ctx, a); err != nil {
		return nil, r, err
	}
	look := r
	look.Interactive, look.Stderr = ask, stderr
	res, err := look.Discover(ctx, a)
	if err != nil {
		return nil, r, err
	}
	hs := ssh.Hosts(a, res)
	if len(hs) == 0 {
		return nil, r, ssh.NoHost(a, res)
	}
	return hs, r, nil
}

// SSHTarget is the host an ssh:// --host names: the one agent host the
// box lists, or the one the user picks from several (the list on out,
// the answer from in), as bare ahptui picks from the local registry.
func SSHTarget(s Spec, getenv func(string) string, in io.Reader, out io.Writer) (dial.Target, error) {
	hs, r, err := SSHHosts(s.Host, getenv, s.AskOnTerminal, out)
	if err != nil {
		return dial.Target{}, &DiscoverError{err}
	}
	h := hs[0]
	if len(hs) > 1 {
		fmt.Fprintf(out, "Agent hosts running on %s:\n", views.SanitizeLine(hs[0].Addr.Box()))
		for i, h := range hs {
			fmt.Fprintf(out, "  %d) %s\n", i+1, DescribeEntry(h.Entry))
		}
		fmt.Fprintf(out, "Connect to which? [1-%d, or q]: ", len(hs))
		line, err := bufio.NewReader(in).ReadString('\n')
		if err != nil && line == "" {
			return dial.Target{}, fmt.Errorf("no host picked (%w): name one as --host %s/TYPE/INSTANCE", err, hs[0].Addr.Box())
		}
		n, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil || n < 1 || n > len(hs) {
			return dial.Target{}, fmt.Errorf("no host picked (%q): run ahptui again and type a number from the list", views.SanitizeLine(strings.TrimSpace(line)))
		}
		h = hs[n-1]
	}
	t := r.Target(h)
	t.Name = s.savedName
	return t, nil
}
