// Command floorframe is the least a terminal program can do before its
// first frame: the Go runtime starts, and it writes one screen (the
// alternate screen, a home and clear, and the text BenchmarkFirstFrame
// looks for) to its terminal. It then waits to be killed, as a UI would.
// BenchmarkFirstFrame times ahptui's first frame against it, pair by pair.
package main

import (
	"os"
	"time"
)

func main() {
	_, _ = os.Stdout.WriteString("\x1b[?1049h\x1b[H\x1b[2J floor · Sessions (0)\r\n")
	time.Sleep(time.Minute)
}
