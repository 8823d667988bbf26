package ui

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"

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
		wide := autoRule(cp.sess, true) != ""
		props := sessionProps(cp.sess.Config.Schema)
		for _, p := range props {
			if !p.approvalLike() || len(p.enum) == 0 && !p.isBool {
				continue
			}
			l := labelOf(p, p.valueIn(cp.sess.Config.Values))
			if p.isBool {
				l = p.title + ": " + l
			}
			out = append(out, views.HeaderSetting{Text: l, Warn: wide})
			break
		}
		for _, p := range props {
			if p.approvalLike() || len(p.enum) == 0 || !containsAny(p.id+" "+p.title, modeWords) {
				continue
			}
			out = append(out, views.HeaderSetting{Text: labelOf(p, p.valueIn(cp.sess.Config.Values))})
			break
		}
	}
	if name := cp.modelName(); name != "" {
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
