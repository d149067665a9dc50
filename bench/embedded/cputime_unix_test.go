//go:build unix

package embedded

import "syscall"

// processCPU is the CPU time, in ns, this process has used (user and
// system): on a shared machine it counts the work, not the waits for a
// core.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
