package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
)

// statusAll is status on every host of the run, each read at once and on
// its own: one that fails is a row with its reason. The JSON is one
// host's shape (statusJSON): every host's row, then every host's
// sessions and waiting rows in host order, each naming its host.
func (a *app) statusAll(ctx context.Context) error {
	set, err := a.dialAll(ctx)
	if err != nil {
		return err
	}
	defer set.Close()
	hs := set.reg.Hosts()
	per := make([]statusJSON, len(hs))
	errs := a.eachHost(ctx, set, func(ctx context.Context, i int, c *conn) error {
		st, err := readStatus(ctx, c, hostFlagsOf(hs[i]))
		if err != nil {
			return err
		}
		per[i] = st
		return nil
	})
	out := statusJSON{Hosts: make([]hostStatusJSON, len(hs)), Sessions: []sessionJSON{}, Waiting: []waitJSON{}}
	for i, h := range hs {
		r := &out.Hosts[i]
		if errs[i] == nil {
			*r = per[i].Hosts[0]
			out.Sessions = append(out.Sessions, per[i].Sessions...)
			out.Waiting = append(out.Waiting, per[i].Waiting...)
		}
		r.hostJSON = hostRowOf(h, errs[i])
		r.Agents = nonNil(r.Agents)
	}
	if err := a.emit(out, func(w io.Writer) {
		for _, r := range out.Hosts {
			a.groupHeader(w, r.hostJSON)
			if r.Error != "" {
				continue
			}
			var b bytes.Buffer
			a.printStatus(&b, r, out)
			// The header named the host: its status without the Host line.
			_, body, _ := strings.Cut(b.String(), "\n")
			for _, l := range strings.SplitAfter(body, "\n") {
				if l != "" {
					io.WriteString(w, "  "+l)
				}
			}
		}
	}); err != nil {
		return err
	}
	return hostsFailed(set, errs)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
