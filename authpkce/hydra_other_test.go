//go:build !linux

package authpkce

import "os/exec"

// killWithParent has no portable equivalent off Linux; TestMain's cleanup
// still stops hydra on every normal exit.
func killWithParent(*exec.Cmd) {}
