//go:build linux || darwin || freebsd

package sysinfo

import (
	"time"

	"golang.org/x/sys/unix"
)

func osName() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return cString(u.Sysname[:]) + " " + cString(u.Release[:]) + " " + cString(u.Machine[:])
}

func cpuTimes() CPU {
	var c CPU
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) == nil {
		c.SelfSys, c.SelfUser = tv(ru.Stime), tv(ru.Utime)
	}
	ru = unix.Rusage{}
	if unix.Getrusage(unix.RUSAGE_CHILDREN, &ru) == nil {
		c.ChildSys, c.ChildUser = tv(ru.Stime), tv(ru.Utime)
	}
	return c
}

func tv(t unix.Timeval) time.Duration { return time.Duration(t.Nano()) }
