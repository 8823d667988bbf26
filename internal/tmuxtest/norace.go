//go:build !race

package tmuxtest

const raceEnabled = false
