//go:build !linux && !freebsd

package bench

import "os/exec"

// setPdeathsig does nothing: only Linux and FreeBSD can tie a child's life to its
// parent's. Elsewhere an interrupted run may leave a server running.
func setPdeathsig(cmd *exec.Cmd) {}
