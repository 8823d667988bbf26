package authpkce

import (
	"os/exec"
	"syscall"
)

// killWithParent makes the kernel kill hydra if the test binary dies
// without reaching TestMain's cleanup (a panic, a -timeout), so no server
// outlives the run.
func killWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
