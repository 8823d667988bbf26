package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/host/fleet"
)

// statusJSON is `ahptui status --json`, one shape for one host or
// several (docs/cli.md): each host's row with its version, server and
// agents, then every host's sessions and what waits, each naming its
// host, so .sessions[] and .waiting[] read the same however many hosts
// the run has.
type statusJSON struct {
	Hosts    []hostStatusJSON `json:"hosts"`
	Sessions []sessionJSON    `json:"sessions"`
	Waiting  []waitJSON       `json:"waiting"`
}

// hostStatusJSON is one host of status: its row, and for a connected
// host its AHP version, server and agents.
type hostStatusJSON struct {
	hostJSON
	ProtocolVersion string      `json:"protocolVersion,omitempty"`
	Server          string      `json:"server,omitempty"`
	Agents          []agentJSON `json:"agents"`
}

type agentJSON struct {
	Provider    string `json:"provider"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

func statusCmd(a *app) *cobra.Command {
	return multiHostCmd(a, &cobra.Command{
		Use:   "status",
		Short: "the host, its AHP version, agents, sessions and what waits on you",
		Long: `The host, its AHP version, agents, sessions and what waits on you.

With --all-hosts (or --host more than once), every host's, grouped by
host; --json has the same shape for one host or several: every host's
row, then every session and waiting row, each naming its host.`,
		Args: args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.multiHost() {
				return a.statusAll(cmd.Context())
			}
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				st, err := readStatus(ctx, c, a.hostFlags(c))
				if err != nil {
					return err
				}
				return a.emit(st, func(w io.Writer) { a.printStatus(w, st.Hosts[0], st) })
			})
		},
	})
}

// readStatus is status on c's host, every session and waiting row naming
// it; the answers reach it through flags.
func readStatus(ctx context.Context, c *conn, flags []string) (statusJSON, error) {
	row := hostStatusJSON{hostJSON: hostJSON{Host: *c.ref(), State: string(fleet.Connected)}, ProtocolVersion: c.ProtocolVersion(), Agents: []agentJSON{}}
	st := statusJSON{Hosts: []hostStatusJSON{row}, Sessions: []sessionJSON{}, Waiting: []waitJSON{}}
	if si := c.ServerInfo(); si != nil {
		st.Hosts[0].Server = si.Name
		if si.Version != nil {
			st.Hosts[0].Server += " " + *si.Version
		}
	}
	if root, ok := c.Root(); ok {
		for _, ag := range root.Agents {
			st.Hosts[0].Agents = append(st.Hosts[0].Agents, agentJSON{Provider: ag.Provider, Name: ag.DisplayName, Description: ag.Description})
		}
	}
	list, err := c.ListSessions(ctx)
	if err != nil {
		return st, fmt.Errorf("list sessions: %w", err)
	}
	for _, s := range list {
		j := sessionOf(s)
		j.Host = c.ref()
		st.Sessions = append(st.Sessions, j)
	}
	// Every session is opened: an MCP server waiting for sign-in or
	// failed shows in its state alone, whatever the session's status.
	items, err := hostWaits(ctx, c, list, flags)
	for _, it := range items {
		w := waitOf(it)
		w.Host = c.ref()
		st.Waiting = append(st.Waiting, w)
	}
	return st, err
}

// printStatus prints one host's status: its row h, and the sessions and
// waiting rows of st that are h's.
func (a *app) printStatus(w io.Writer, h hostStatusJSON, st statusJSON) {
	fmt.Fprintf(w, "%s %s\n", a.paint(sgrBold, "Host:"), hostText(h.Host.display()))
	fmt.Fprintf(w, "%s AHP %s", a.paint(sgrBold, "Protocol:"), hostText(h.ProtocolVersion))
	if h.Server != "" {
		fmt.Fprintf(w, " (%s)", hostText(h.Server))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, a.paint(sgrBold, "Agents:"))
	if len(h.Agents) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, ag := range h.Agents {
		fmt.Fprintf(w, "  %s  %s\n", hostText(ag.Provider), hostText(ag.Name))
	}
	fmt.Fprintln(w, a.paint(sgrBold, "Sessions:"))
	sessions := onHost(st.Sessions, h.Host, func(s sessionJSON) *hostRef { return s.Host })
	if len(sessions) == 0 {
		fmt.Fprintln(w, "  none")
	}
	rows := make([][]string, len(sessions))
	for i, s := range sessions {
		rows[i] = []string{"  " + hostText(s.Session), s.Status, hostText(s.Title)}
	}
	if len(rows) > 0 {
		a.tableRows(w, []string{"", "STATUS", ""}, rows)
	}
	a.printWaiting(w, onHost(st.Waiting, h.Host, func(x waitJSON) *hostRef { return x.Host }))
}

// onHost are the rows of host h (a row that names no host is every
// host's).
func onHost[T any](rows []T, h hostRef, host func(T) *hostRef) []T {
	var out []T
	for _, r := range rows {
		if x := host(r); x == nil || x.URL == h.URL {
			out = append(out, r)
		}
	}
	return out
}

// printWaiting says what waits on the user and what answers it.
func (a *app) printWaiting(w io.Writer, ws []waitJSON) {
	if len(ws) == 0 {
		return
	}
	fmt.Fprintln(w, a.paint(sgrBold, "Waiting on you:"))
	for _, x := range ws {
		fmt.Fprintf(w, "  %s  %s %s\n", hostText(x.Session), a.paint(sgrYellow, x.Kind), hostText(x.Name))
		for _, o := range x.Options {
			fmt.Fprintf(w, "      --option %d  %s (%s)\n", o.N, hostText(o.Label), hostText(o.Kind))
		}
		for _, q := range x.Questions {
			fmt.Fprintf(w, "      %s (%s): %s", hostText(q.ID), hostText(q.Kind), hostText(q.Message))
			if len(q.Options) > 0 {
				fmt.Fprintf(w, " [%s]", hostText(strings.Join(q.Options, ", ")))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "    answer: %s\n", hostText(x.Answer))
	}
}

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
