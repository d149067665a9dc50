//go:build linux || freebsd

package bench

import (
	"os/exec"
	"syscall"
)

// setPdeathsig has the kernel kill the server if the benchmark dies, so
// an interrupted run leaves no server behind.
func setPdeathsig(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
