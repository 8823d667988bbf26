// Command ahptui is a terminal client for the Agent Host Protocol: it watches
// and steers the AI agent sessions of one AHP host, and runs OAuth sign-in
// when a tool call or MCP server needs it.
//
// Package main is the binary's stamp (version.go) and this call: the
// command itself, UI and scriptable commands, is package app.
package main

import (
	"os"

	"github.com/ahptui/ahptui/app"
)

func main() {
	s := appStamp()
	os.Exit(app.Run(os.Args[1:], os.Stdout, os.Stderr, app.Build{Version: s.Version, Stamp: s.String()}))
}
