package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/ahptui/ahptui/hostconn"
	"github.com/ahptui/ahptui/hostpick"
	"github.com/ahptui/ahptui/hostregistry"
	"github.com/ahptui/ahptui/savedhosts"
	"github.com/ahptui/ahptui/views"
)

// reachTimeout bounds one host's check in `ahptui hosts`.
const reachTimeout = 3 * time.Second

// listHosts is `ahptui hosts`: the saved hosts and the ones VS Code's
// registry lists, each dialled once (the upgrade, with its token) to say
// whether it answers.
func listHosts(o options, stdout, stderr io.Writer) int {
	type row struct {
		label  string
		target hostconn.Target
		reach  string
	}
	var saved, found []row
	dir, err := configDir(o)
	if err != nil {
		fmt.Fprintln(stderr, "ahptui:", err)
		return 1
	}
	hosts, err := savedhosts.Load(dir)
	if err != nil {
		fmt.Fprintln(stderr, "ahptui: saved hosts:", err)
	}
	for _, h := range hosts {
		oo := o
		oo.saved = h.Name
		t, err := savedTarget(oo)
		r := row{label: h.Name + "  " + views.SanitizeLine(h.URL), target: t}
		if err != nil {
			r.reach = views.SanitizeLine(err.Error())
		}
		saved = append(saved, r)
	}
	reg := hostregistry.Discover(hostpick.RegistryEnv(), hostregistry.Alive)
	for _, e := range reg.Entries {
		found = append(found, row{label: hostpick.DescribeEntry(e), target: hostpick.RegistryTarget(e)})
	}
	var wg sync.WaitGroup
	check := func(r *row) {
		defer wg.Done()
		if r.reach != "" {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), reachTimeout)
		defer cancel()
		tp, err := r.target.Dial(ctx, 0)
		if err != nil {
			var de *hostconn.DialError
			if errors.As(err, &de) {
				r.reach = de.Short()
			} else {
				r.reach = "unreachable"
			}
			return
		}
		_ = tp.Close("ahptui hosts: reachability check")
		r.reach = "reachable"
	}
	for i := range saved {
		wg.Add(1)
		go check(&saved[i])
	}
	for i := range found {
		wg.Add(1)
		go check(&found[i])
	}
	wg.Wait()
	fmt.Fprintf(stdout, "Saved hosts (%s):\n", filepath.Join(dir, savedhosts.FileName))
	if len(saved) == 0 {
		fmt.Fprintln(stdout, "  none")
	}
	for _, r := range saved {
		fmt.Fprintf(stdout, "  %s  — %s\n", r.label, r.reach)
	}
	fmt.Fprintln(stdout, "Running on this machine (VS Code's agent-host registry):")
	if len(found) == 0 {
		fmt.Fprintln(stdout, "  none; start one with `code agent host`")
	}
	for _, r := range found {
		fmt.Fprintf(stdout, "  %s  — %s\n", r.label, r.reach)
	}
	// Why an entry was left out: a stale file is normal, a refused
	// directory is something to fix.
	for _, why := range reg.Skipped {
		fmt.Fprintln(stdout, "  ignored: "+views.SanitizeLine(why))
	}
	return 0
}
