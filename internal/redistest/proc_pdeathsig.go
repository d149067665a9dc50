//go:build linux || freebsd

package redistest

import (
	"os/exec"
	"syscall"
)

// SetPdeathsig has the kernel kill the child started by cmd when the
// test binary dies, even if it crashes.
func SetPdeathsig(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
