//go:build !linux && !freebsd

package redistest

import "os/exec"

// SetPdeathsig does nothing: only Linux and FreeBSD can tie a child's life to its
// parent's. Elsewhere a crashed test binary may leave a server running.
func SetPdeathsig(cmd *exec.Cmd) {}
