package cli

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/ahptui/ahptui/hosts"
)

// hostStatusJSON is one host of `ahptui status --all-hosts --json`: the
// host's row, and for a connected host what status prints for it.
type hostStatusJSON struct {
	hostJSON
	ProtocolVersion string        `json:"protocolVersion,omitempty"`
	Server          string        `json:"server,omitempty"`
	Agents          []agentJSON   `json:"agents"`
	Sessions        []sessionJSON `json:"sessions"`
	Waiting         []waitJSON    `json:"waiting"`
}

// statusAll is status on every host of the run, each read at once and on
// its own: one that fails is a row with its reason.
func (a *app) statusAll(ctx context.Context) error {
	set, err := a.dialAll(ctx)
	if err != nil {
		return err
	}
	defer set.Close()
	hs := set.reg.Hosts()
	rows := make([]hostStatusJSON, len(hs))
	errs := a.eachHost(ctx, set, func(ctx context.Context, i int, c *conn) error {
		st, err := readStatus(ctx, c, hostFlagsOf(hs[i]))
		if err != nil {
			return err
		}
		tagRows(hs[i], st.Sessions, st.Waiting)
		rows[i].ProtocolVersion, rows[i].Server = st.ProtocolVersion, st.Server
		rows[i].Agents, rows[i].Sessions, rows[i].Waiting = st.Agents, st.Sessions, st.Waiting
		return nil
	})
	for i, h := range hs {
		r := &rows[i]
		r.hostJSON = hostRowOf(h, errs[i])
		if errs[i] != nil {
			r.ProtocolVersion, r.Server, r.Agents, r.Sessions, r.Waiting = "", "", nil, nil, nil
		}
		r.Agents, r.Sessions, r.Waiting = nonNil(r.Agents), nonNil(r.Sessions), nonNil(r.Waiting)
	}
	if err := a.emit(rows, func(w io.Writer) {
		for _, r := range rows {
			a.groupHeader(w, r.hostJSON)
			if r.Error != "" {
				continue
			}
			var b bytes.Buffer
			a.printStatus(&b, statusJSON{ProtocolVersion: r.ProtocolVersion, Server: r.Server, Agents: r.Agents, Sessions: r.Sessions, Waiting: r.Waiting})
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

// tagRows names host h on every session and waiting row.
func tagRows(h *hosts.Host, sessions []sessionJSON, waits []waitJSON) {
	for j := range sessions {
		sessions[j].Host = h.Display()
	}
	for j := range waits {
		waits[j].Host = h.Display()
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
