//go:build unix

package search

import "syscall"

// cpuTime is the process's user and system CPU time in nanoseconds (every
// thread, the collector's included): on a shared machine it measures the
// work where wall time measures the neighbours too.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
