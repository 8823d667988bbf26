// Command keyecho shows the bubbletea v2 name of each key pressed, so an
// end-to-end test can check that the names in keymap are what a real
// terminal delivers. F10 quits.
package main

import (
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"
)

type model struct {
	n    int
	last string
}

func (m model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if k.String() == "f10" {
			return m, tea.Quit
		}
		m.n++
		m.last = k.String()
	}
	return m, nil
}

func (m model) View() tea.View {
	return tea.NewView(fmt.Sprintf("keyecho ready\nkey %d: [%s]\n", m.n, m.last))
}

func main() {
	if _, err := tea.NewProgram(model{}).Run(); err != nil {
		fmt.Fprintln(os.Stderr, "keyecho:", err)
		os.Exit(1)
	}
}
