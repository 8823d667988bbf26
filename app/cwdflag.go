package app

import (
	"os"
	"strings"

	"github.com/ahptui/ahptui/ui"
)

// cwdFlag collects --cwd: the working directories a new session is created
// with (createSession.workingDirectories, AHP 1.0). Without it, the
// new-session dialog offers the directory ahptui runs in as the folder,
// shown and editable, to a host on this machine only: to a host on
// another one a local path means nothing, and would tell it one.
type cwdFlag []string

func (c *cwdFlag) String() string { return strings.Join(*c, ",") }

// Set takes one directory (repeat the flag for more). A relative path is
// made absolute against the directory ahptui runs in, as a shell would.
func (c *cwdFlag) Set(dir string) error {
	uri, err := ui.FolderURI(dir)
	if err != nil {
		return err
	}
	*c = append(*c, uri)
	return nil
}

// workingFolder is the directory ahptui runs in as a file:// URI, which
// the new-session dialog offers a host on this machine; "" when unknown.
func workingFolder() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	uri, err := ui.FolderURI(wd)
	if err != nil {
		return ""
	}
	return uri
}
