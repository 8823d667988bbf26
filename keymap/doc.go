// Package keymap holds every key binding of ahptui in one place
// (bubbles/key), grouped per view, with the help text bubbles/help renders.
// It imports nothing of ours.
package keymap
