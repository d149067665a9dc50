//go:build !linux

package bench

import "os/exec"

// setPdeathsig does nothing: only Linux can tie a child's life to its
// parent's. Elsewhere an interrupted run may leave a server running.
func setPdeathsig(cmd *exec.Cmd) {}
