package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/host/privilege"
	"github.com/ahptui/ahptui/protocol"
)

// settingJSON is one setting in `ahptui settings show --json`.
type settingJSON struct {
	// Scope is session (the session's own) or host (the host's, for
	// every client of it).
	Scope       string          `json:"scope"`
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Description string          `json:"description,omitempty"`
	Type        string          `json:"type"`
	Value       json.RawMessage `json:"value"`
	Label       string          `json:"label"`
	Default     json.RawMessage `json:"default,omitempty"`
	Choices     []choiceJSON    `json:"choices,omitempty"`
	// Editable: settings set may change it; else Why says why not.
	Editable bool   `json:"editable"`
	Why      string `json:"why,omitempty"`
}

type choiceJSON struct {
	Value json.RawMessage `json:"value"`
	Label string          `json:"label"`
}

// settingSetJSON is what settings set prints.
type settingSetJSON struct {
	Session string          `json:"session"`
	Scope   string          `json:"scope"`
	ID      string          `json:"id"`
	Value   json.RawMessage `json:"value"`
	Label   string          `json:"label"`
	// Widens: the value lets more run without asking (host/privilege),
	// so it was set only once confirmed.
	Widens bool `json:"widens"`
}

// scoped is a setting with where it lives and its current value.
type scoped struct {
	scope, channel string
	s              privilege.Setting
	value          json.RawMessage
}

func (x scoped) why() string {
	switch {
	case x.s.ReadOnly:
		return "set by the host"
	case x.scope == "session" && !x.s.Mutable:
		return "set when the session is created"
	}
	return ""
}

// settingsOf are the session's settings, then the host's.
func settingsOf(c *conn, sess protocol.SessionState, uri string) []scoped {
	var out []scoped
	if sess.Config != nil {
		for _, s := range privilege.SessionSettings(sess.Config.Schema) {
			out = append(out, scoped{"session", uri, s, s.ValueIn(sess.Config.Values)})
		}
	}
	if root, ok := c.Root(); ok && root.Config != nil {
		for _, s := range privilege.RootSettings(root.Config.Schema) {
			out = append(out, scoped{"host", protocol.RootChannel, s, s.ValueIn(root.Config.Values)})
		}
	}
	return out
}

func settingsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "settings",
		Short: "show a session's and its host's settings, or change one",
	}
	cmd.AddCommand(settingsShowCmd(a), settingsSetCmd(a))
	return cmd
}

func settingsShowCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "show SESSION",
		Short: "the session's and the host's settings, with values and choices",
		Args:  args(1, 1, "SESSION"),
		RunE: a.onSession(func(ctx context.Context, c *conn, argv []string, sess protocol.SessionState, uri string) error {
			out := []settingJSON{}
			for _, x := range settingsOf(c, sess, uri) {
				label, _ := x.s.Label(x.value)
				j := settingJSON{Scope: x.scope, ID: x.s.ID, Title: x.s.Title, Description: x.s.Description, Type: x.s.Type,
					Value: x.value, Label: label, Default: x.s.Default, Why: x.why()}
				if j.Value == nil {
					j.Value = json.RawMessage("null")
				}
				j.Editable = j.Why == ""
				for _, v := range x.s.Choices() {
					l, _ := x.s.Label(v)
					j.Choices = append(j.Choices, choiceJSON{v, l})
				}
				out = append(out, j)
			}
			return a.emit(out, func(w io.Writer) { a.printSettings(w, out) })
		}),
	}
}

func (a *app) printSettings(w io.Writer, out []settingJSON) {
	if len(out) == 0 {
		fmt.Fprintln(w, "no settings")
		return
	}
	rows := make([][]string, len(out))
	for i, j := range out {
		var cs []string
		for _, c := range j.Choices {
			cs = append(cs, hostText(string(c.Value)))
		}
		note := strings.Join(cs, " | ")
		if !j.Editable {
			note = j.Why
		}
		rows[i] = []string{j.Scope, hostText(j.ID), hostText(j.Title), hostText(j.Label), note}
	}
	a.table(w, []string{"SCOPE", "ID", "TITLE", "VALUE", "CHOICES"}, rows)
}

func settingsSetCmd(a *app) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "set SESSION KEY VALUE",
		Short: "change one of the session's settings, or the host's",
		Long: `Changes one setting: KEY is its id or title (ahptui settings show SESSION
lists them, the session's first), VALUE one of its choices (by value or
label), true/false, a number or text. A value that lets more run
without asking (an approval mode such as "Allow all", auto-approve, a
sandbox turned off), and any host setting (it reaches every client of
the host), is set only once confirmed: on a terminal it asks; otherwise
it is refused, saying what it would allow, unless --yes is given.`,
		Args: args(3, 3, "SESSION KEY VALUE"),
		RunE: a.onSession(func(ctx context.Context, c *conn, argv []string, sess protocol.SessionState, uri string) error {
			x, err := findSetting(settingsOf(c, sess, uri), argv[1])
			if err != nil {
				return err
			}
			if why := x.why(); why != "" {
				return conflictf("%s cannot be changed: %s", views_quote(titleOf(x.s)), why)
			}
			v, err := parseSettingValue(x.s, argv[2])
			if err != nil {
				return err
			}
			widens := privilege.Widens(x.s, x.value, v)
			if ask, ok := confirmationOf(x, v, widens); ok && !yes {
				if err := a.confirm(ask); err != nil {
					return err
				}
			}
			cfg := map[string]json.RawMessage{x.s.ID: v}
			var act protocol.StateActionVariant = protocol.SessionConfigChangedAction{Config: cfg}
			if x.scope == "host" {
				act = protocol.RootConfigChangedAction{Config: cfg}
			}
			if err := c.dispatch(ctx, x.channel, act); err != nil {
				return err
			}
			label, _ := x.s.Label(v)
			j := settingSetJSON{Session: uri, Scope: x.scope, ID: x.s.ID, Value: v, Label: label, Widens: widens}
			return a.emit(j, func(w io.Writer) { fmt.Fprintf(w, "%s: %s\n", hostText(titleOf(x.s)), hostText(label)) })
		}),
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "set a value that lets more run without asking, or a host setting, without asking first")
	return cmd
}

func titleOf(s privilege.Setting) string {
	if s.Title != "" {
		return s.Title
	}
	return s.ID
}

// confirmation is what a value needs answered before it is set: the
// question, and what it would do and reach (as the UI's confirmation
// names them).
type confirmation struct{ question, effect string }

// confirmationOf is the confirmation v needs; ok is false when it needs
// none (it widens nothing and is the session's own).
func confirmationOf(x scoped, v json.RawMessage, widens bool) (confirmation, bool) {
	if !widens && x.scope != "host" {
		return confirmation{}, false
	}
	label, desc := x.s.Label(v)
	what := strconv.Quote(hostText(label))
	if desc != "" {
		what += " (" + hostText(desc) + ")"
	}
	reach := "in this session"
	if x.scope == "host" {
		reach = "for every client of this host, VS Code windows included"
	}
	c := confirmation{question: fmt.Sprintf("Set %s to %s?", hostText(titleOf(x.s)), what)}
	if widens {
		c.effect = fmt.Sprintf("%s for %s would let tool calls run without asking you first, %s", what, hostText(titleOf(x.s)), reach)
	} else {
		c.effect = fmt.Sprintf("%s for %s changes how the host works %s", what, hostText(titleOf(x.s)), reach)
	}
	return c, true
}

// confirm asks c on the terminal; without one it refuses at once, saying
// what the value would do and that --yes allows it.
func (a *app) confirm(c confirmation) error {
	if !a.StdinTTY {
		return usagef("not set: %s; stdin is not a terminal to ask on: pass --yes to allow it", c.effect)
	}
	fmt.Fprintf(a.Stderr, "%s %s. [y/N] ", c.question, upperFirst(c.effect))
	line, _ := bufio.NewReader(a.Stdin).ReadString('\n')
	if ans := strings.TrimSpace(line); !strings.EqualFold(ans, "y") && !strings.EqualFold(ans, "yes") {
		return usagef("not set: answer y, or pass --yes")
	}
	return nil
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// findSetting is the setting key names: its id, else its title (case
// aside); the session's before the host's.
func findSetting(all []scoped, key string) (scoped, error) {
	for _, x := range all {
		if x.s.ID == key {
			return x, nil
		}
	}
	var found []scoped
	for _, x := range all {
		if strings.EqualFold(x.s.Title, key) {
			found = append(found, x)
		}
	}
	if len(found) > 0 {
		return found[0], nil
	}
	var ids []string
	for _, x := range all {
		ids = append(ids, hostText(x.s.ID))
	}
	if len(ids) == 0 {
		return scoped{}, notFoundf("no setting %s: this session and its host have none", views_quote(key))
	}
	return scoped{}, notFoundf("no setting %s: there are %s", views_quote(key), strings.Join(ids, ", "))
}

// parseSettingValue reads arg as a value of s: one of its choices (the
// value itself or its label), a boolean, a number, or text.
func parseSettingValue(s privilege.Setting, arg string) (json.RawMessage, error) {
	if cs := s.Choices(); len(cs) > 0 {
		for _, c := range cs {
			var str string
			if string(c) == arg || json.Unmarshal(c, &str) == nil && str == arg {
				return c, nil
			}
		}
		for _, c := range cs {
			if l, _ := s.Label(c); strings.EqualFold(l, arg) {
				return c, nil
			}
		}
		if !s.IsBool() {
			var names []string
			for _, c := range cs {
				l, _ := s.Label(c)
				names = append(names, fmt.Sprintf("%s (%s)", hostText(string(c)), hostText(l)))
			}
			return nil, usagef("%s is not a choice of %s: pick %s", views_quote(arg), views_quote(titleOf(s)), strings.Join(names, ", "))
		}
	}
	switch s.Type {
	case "boolean":
		switch strings.ToLower(arg) {
		case "true", "on", "yes":
			return json.RawMessage("true"), nil
		case "false", "off", "no":
			return json.RawMessage("false"), nil
		}
		return nil, usagef("%s takes true or false, not %s", views_quote(titleOf(s)), views_quote(arg))
	case "number", "integer":
		f, err := strconv.ParseFloat(arg, 64)
		if err != nil || s.Type == "integer" && f != float64(int64(f)) {
			return nil, usagef("%s takes %s %s, not %s", views_quote(titleOf(s)), article(s.Type), s.Type, views_quote(arg))
		}
		return json.RawMessage(strconv.FormatFloat(f, 'f', -1, 64)), nil
	case "string", "":
		b, _ := json.Marshal(arg)
		return b, nil
	}
	if !json.Valid([]byte(arg)) {
		return nil, usagef("%s takes JSON (%s), not %s", views_quote(titleOf(s)), hostText(s.Type), views_quote(arg))
	}
	return json.RawMessage(arg), nil
}

func article(typ string) string {
	if typ == "integer" {
		return "an"
	}
	return "a"
}
