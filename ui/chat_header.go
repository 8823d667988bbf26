package ui

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ahptui/ahptui/host/privilege"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/views"
)

// headerSettings is what the chat header says of the open session's
// settings, most important first: the approval mode (a warning when it
// lets tool calls run without asking, so an Allow-all session never looks
// like a Manual one), the agent mode, the model the next message goes
// with, and the working folder.
func (cp *chatPanel) headerSettings() []views.HeaderSetting {
	if !cp.hasSess {
		return nil
	}
	var out []views.HeaderSetting
	if cp.sess.Config != nil {
		props := sessionProps(cp.sess.Config.Schema)
		vals := cp.sess.Config.Values
		// The approval mode: the first approval-like choice.
		mode := -1
		for i, p := range props {
			if !p.approvalLike() || len(p.enum) == 0 && !p.isBool {
				continue
			}
			v := p.valueIn(vals)
			l := labelOf(p, v)
			if p.isBool {
				l = p.title + ": " + l
			}
			out = append(out, views.HeaderSetting{Text: l, Warn: p.def != nil && p.widens(p.def, v)})
			mode = i
			break
		}
		// Then what else lets tool calls run without asking: a sandbox
		// off, the tools granted in this session.
		for i, p := range props {
			if i == mode || !p.approvalLike() {
				continue
			}
			v := p.valueIn(vals)
			if p.def == nil || !p.widens(p.def, v) {
				continue
			}
			if t := grantedText(p, v); t != "" {
				out = append(out, views.HeaderSetting{Text: t, Warn: true})
			}
		}
		for _, p := range props {
			if p.approvalLike() || len(p.enum) == 0 || !hasWord(p.id+" "+p.title, modeWords) {
				continue
			}
			out = append(out, views.HeaderSetting{Text: labelOf(p, p.valueIn(cp.sess.Config.Values))})
			break
		}
	}
	if name := cp.modelName(); name != "" {
		if set := cp.modelSettingLabels(); set != "" {
			name += " (" + set + ")"
		}
		out = append(out, views.HeaderSetting{Text: name})
	}
	if dirs := cp.sessionDirs(); len(dirs) > 0 {
		full := folderName(string(dirs[0]))
		short := ""
		if i := strings.LastIndex(full, "/"); i > 0 && i < len(full)-1 {
			short = "…" + full[i:]
		}
		out = append(out, views.HeaderSetting{Text: full, Short: short})
	}
	return out
}

// sessionDirs is the open session's working directories: its state's,
// else its summary's (VS Code's host names them in the session list
// only).
func (cp *chatPanel) sessionDirs() []protocol.URI {
	if len(cp.sess.WorkingDirectories) > 0 || cp.sessions == nil {
		return cp.sess.WorkingDirectories
	}
	for _, s := range cp.sessions.list {
		if s.Resource == cp.openSession {
			return s.WorkingDirectories
		}
	}
	return nil
}

// modeWords name an agent-mode setting ("Mode", "Agent mode").
var modeWords = []string{"mode"}

// modelName is the model the session's next message is sent with, by
// the name its agent gives it.
func (cp *chatPanel) modelName() string {
	id := cp.modelID()
	if id == "" {
		return ""
	}
	for _, a := range cp.root.Agents {
		if a.Provider != cp.sess.Provider {
			continue
		}
		for _, m := range a.Models {
			if m.ID == id && m.Name != "" {
				return m.Name
			}
		}
	}
	return id
}

// modelSettingLabels is the model's own settings chosen for the next
// message (Optimize for, Thinking Level), as their labels, in the
// schema's order: "" when none is chosen.
func (cp *chatPanel) modelSettingLabels() string {
	sel := cp.modelSelection()
	md, ok := cp.currentModel()
	if sel == nil || len(sel.Config) == 0 || !ok || md.ID != sel.ID || md.ConfigSchema == nil {
		return ""
	}
	var labels []string
	for _, p := range rootProps(*md.ConfigSchema) {
		if v, ok := sel.Config[p.id]; ok {
			labels = append(labels, labelOf(p, v.Raw))
		}
	}
	return strings.Join(labels, ", ")
}

// folderName is a working directory as the header shows it: a file URI
// as its path, the home directory as ~, anything else as it is.
func folderName(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return uri
	}
	p := filepath.Clean(u.Path)
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		if p == home {
			return "~"
		}
		if rest, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
			return "~/" + rest
		}
	}
	return p
}

// grantedText is a widening setting as the header names it: a lists
// setting by its grant lists that hold something ("Allowed tools:
// bash"; "" when none does), another by its title and value.
func grantedText(p configProp, v json.RawMessage) string {
	if len(p.lists) > 0 {
		if m, ok := privilege.ListValues(v); ok {
			var parts []string
			for _, l := range p.lists {
				// A deny list lets nothing run: it is no grant.
				if len(m[l.ID]) > 0 && !hasWord(l.ID+" "+l.Title, []string{"deny", "denied", "block", "reject"}) {
					parts = append(parts, l.Title+": "+strings.Join(m[l.ID], ", "))
				}
			}
			return strings.Join(parts, "; ")
		}
	}
	t := p.title
	if t == "" {
		t = p.id
	}
	return t + ": " + labelOf(p, v)
}

// hasWord reports whether s holds any of words, in any case.
func hasWord(s string, words []string) bool {
	s = strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
