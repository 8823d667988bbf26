package app

import (
	"os"

	"github.com/charmbracelet/x/term"
)

// isTerminal reports whether f is a terminal, so command output may be
// coloured (charmbracelet/x/term is already linked in through Bubble Tea).
func isTerminal(f *os.File) bool { return term.IsTerminal(f.Fd()) }
