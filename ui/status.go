package ui

import (
	"time"

	"github.com/ahptui/ahptui/views"
)

// statusLine is the status bar's state: the connection and the last
// message or error.
type statusLine struct {
	conn  connInfo
	text  string
	isErr bool
	at    time.Time
}

// statusTTL is how long an informational status message stays; errors stay
// until the next message, so one is never missed.
const statusTTL = 10 * time.Second

type connInfo struct {
	state        views.ConnState
	attempt      int
	cause        string
	failedReason string
	failedHint   string
	version      string
}
