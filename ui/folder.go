package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ahptui/ahptui/host/trust"
	"github.com/ahptui/ahptui/protocol"
)

// FolderURI is dir as a session's working directory: the file:// URI of
// its absolute path (a relative one taken against the directory ahptui
// runs in, ~ as the home directory, as a shell would). --cwd and the
// new-session dialog's Folder both read a folder through it.
func FolderURI(dir string) (string, error) {
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return "", errors.New("empty directory")
	}
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%q: %w", dir, err)
		}
		dir = filepath.Join(home, strings.TrimPrefix(dir, "~"))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%q: %w", dir, err)
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path: file:///C:/…
	}
	return (&url.URL{Scheme: "file", Path: p}).String(), nil
}

// defaultDirs is the folder a new session for ch starts with in the
// dialog: what --cwd named, else, for a host on this machine, the
// directory ahptui runs in (Config.Folder); none otherwise.
func (sl *sessionList) defaultDirs(ch newChoice) []protocol.URI {
	if dirs := sl.workingDirectories(ch); len(dirs) > 0 {
		return dirs
	}
	if sl.cfg.Folder != "" && trust.OnThisMachine(sl.cfg.Host) {
		return []protocol.URI{protocol.URI(sl.cfg.Folder)}
	}
	return nil
}

// folderLabel is the dialog's Folder value: the first folder's path
// (home as ~), "(none)" for none, "+N" for more.
func folderLabel(dirs []protocol.URI) string {
	if len(dirs) == 0 {
		return "(none)"
	}
	l := folderName(string(dirs[0]))
	if len(dirs) > 1 {
		l += fmt.Sprintf(" +%d", len(dirs)-1)
	}
	return l
}

// setFolder is the Folder form's answer: the folder the session is
// created in ("" for none). A folder on this machine must exist.
func (sl *sessionList) setFolder(step *newConfig, text string) error {
	if strings.TrimSpace(text) == "" {
		step.dirs = nil
		return nil
	}
	uri, err := FolderURI(text)
	if err != nil {
		return err
	}
	if trust.OnThisMachine(sl.cfg.Host) {
		u, _ := url.Parse(uri)
		if fi, err := os.Stat(filepath.FromSlash(u.Path)); err != nil || !fi.IsDir() {
			return fmt.Errorf("no folder %s on this machine", u.Path)
		}
	}
	step.dirs = []protocol.URI{protocol.URI(uri)}
	return nil
}

// folderProp is the Folder row as the input form edits it: a text.
var folderProp = configProp{title: "Folder", typ: "string",
	description: "The folder the agent works in: a path on the host's machine (~ for home); empty for none"}

// editFolder opens the form on the dialog's Folder. A new folder asks the
// host for the session's settings again (they may depend on it, as a
// worktree does on the folder being a repository), keeping the values
// already chosen that the answer still has.
func (sl *sessionList) editFolder(step *newConfig) tea.Cmd {
	cur := ""
	if len(step.dirs) > 0 {
		cur = folderName(string(step.dirs[0]))
	}
	v, _ := json.Marshal(cur)
	apply := func(v json.RawMessage) tea.Cmd {
		var text string
		if err := json.Unmarshal(v, &text); err != nil {
			return reportError(fmt.Errorf("the folder is a path: %w", err))
		}
		if sl.cfgStep != step {
			return nil
		}
		before := slices.Clone(step.dirs)
		if err := sl.setFolder(step, text); err != nil {
			return reportError(err)
		}
		if slices.Equal(before, step.dirs) {
			return nil
		}
		return sl.reresolve(step)
	}
	return sl.openSettingForm(folderProp, v, modalNewSession, apply, nil)
}

// reresolve asks the host for step's settings with its new folder; the
// values chosen so far are kept where the new schema has them.
func (sl *sessionList) reresolve(step *newConfig) tea.Cmd {
	c, ctx := sl.client, sl.ctx
	if c == nil {
		return reportError(errNoClient)
	}
	p := protocol.ResolveSessionConfigParams{Provider: &step.choice.provider, Config: maps.Clone(step.values)}
	if len(step.dirs) > 0 {
		p.WorkingDirectory = &step.dirs[0]
	}
	step.loading = true
	return func() tea.Msg {
		res, err := c.ResolveSessionConfig(ctx, p)
		return configResolvedMsg{step: step, res: res, err: err}
	}
}
