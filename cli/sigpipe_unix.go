//go:build unix

package cli

import (
	"os"
	"os/signal"
	"syscall"
)

// catchSIGPIPE makes a write to a closed pipe on stdout or stderr return
// EPIPE (which checkedWriter reports) instead of killing the process with
// SIGPIPE, exit 141 under pipefail. The returned func undoes it.
func catchSIGPIPE() func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGPIPE)
	return func() { signal.Stop(ch) }
}
