package sysinfo

import "golang.org/x/sys/unix"

func totalMemory() int64 {
	n, err := unix.SysctlUint64("hw.physmem")
	if err != nil {
		return 0
	}
	return int64(n)
}
