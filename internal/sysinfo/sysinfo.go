// Package sysinfo answers the questions INFO asks about the machine and
// the process: the operating system line ("os:"), the CPU time used by
// the process and its children (used_cpu_*), and the physical memory
// (total_system_memory).
//
// Guarantees: every function builds and returns on every GOOS/GOARCH,
// never panics and never fails. Where the platform has a probe (Linux,
// macOS and FreeBSD through uname/getrusage/sysinfo/sysctl, Windows
// through RtlGetVersion/GetProcessTimes/GlobalMemoryStatusEx) the values
// are the operating system's. Where it has none, or the probe fails, the
// answer is the honest "unknown" Redis itself shows: OS falls back to
// runtime.GOOS and runtime.GOARCH, CPU times to zero, memory to 0.
package sysinfo

import (
	"bytes"
	"runtime"
	"time"
)

// CPU is the CPU time used so far by this process (Self*) and by its
// terminated, waited-for children (Child*), split into system (kernel)
// and user time. A value the platform cannot report is zero.
type CPU struct {
	SelfSys, SelfUser   time.Duration
	ChildSys, ChildUser time.Duration
}

// OS returns the operating system as Redis's INFO "os:" field shows it:
// uname's system name, release and machine, e.g. "Linux 6.1.0 x86_64"
// (on Windows "Windows 10.0.19045 amd64"). Without a probe it is
// runtime.GOOS and runtime.GOARCH, e.g. "plan9 amd64".
func OS() string {
	if s := osName(); s != "" {
		return s
	}
	return runtime.GOOS + " " + runtime.GOARCH
}

// CPUTimes returns the CPU time used by the process and its children;
// the fields the platform cannot report are zero.
func CPUTimes() CPU { return cpuTimes() }

// TotalMemory returns the machine's physical memory in bytes, or 0 when
// it is unknown (as Redis reports total_system_memory:0).
func TotalMemory() int64 { return totalMemory() }

// cString returns the bytes of b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// ProcessCPU is the CPU time this process has used, user and system
// (CPUTimes' Self*): benchmarks on a shared machine report it per
// operation, as it counts the work and not the waits for a core.
func ProcessCPU() time.Duration {
	c := cpuTimes()
	return c.SelfSys + c.SelfUser
}
