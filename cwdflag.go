package main

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// cwdFlag collects --cwd: the working directories a new session is created
// with (createSession.workingDirectories, AHP 1.0). Nothing is sent unless
// the user names one: the current directory of this machine means nothing
// to a host on another one, and would tell it a local path.
type cwdFlag []string

func (c *cwdFlag) String() string { return strings.Join(*c, ",") }

// Set takes one directory (repeat the flag for more). A relative path is
// made absolute against the directory ahptui runs in, as a shell would.
func (c *cwdFlag) Set(dir string) error {
	if strings.TrimSpace(dir) == "" {
		return errors.New("empty directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%q: %w", dir, err)
	}
	*c = append(*c, fileURI(abs))
	return nil
}

// fileURI is the file:// URI of an absolute path (slashes on every OS).
func fileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path: file:///C:/…
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
