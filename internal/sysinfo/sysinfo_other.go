//go:build !linux && !darwin && !freebsd && !windows

package sysinfo

// No probe on this platform: OS falls back to GOOS and GOARCH, and CPU
// times and memory are reported as unknown (zero), as Redis does.

func osName() string { return "" }

func cpuTimes() CPU { return CPU{} }

func totalMemory() int64 { return 0 }
