//go:build race

package tmuxtest

const raceEnabled = true
