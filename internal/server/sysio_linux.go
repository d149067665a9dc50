//go:build linux && !race

package server

import (
	"syscall"
	"unsafe"
)

// sysRead and sysWrite are read(2) and write(2) on a non-blocking socket
// without the runtime's syscall bookkeeping (syscall.RawSyscall, not
// syscall.Syscall). Such a call cannot block, so the scheduler does not
// need to know about it; what the bookkeeping costs at one request per
// round trip is mostly not its own time but the wake-up of the runtime's
// monitor thread (sysmon): with GOMAXPROCS=1 it goes to sleep whenever it
// finds the one P idle, which between requests it often does, and
// entering the next ordinary syscall wakes it with a futex, after which
// it polls every 20 µs until it sleeps again (bench/README.md measures
// it). Without them sysmon stays asleep until the next timer (the
// engine's 100 ms cron at the latest), so preempting a goroutine that
// runs long may wait that much longer; every other syscall of the
// process still wakes it.
//
// Under the race detector the ordinary calls are used (sysio_unix.go):
// syscall.Read and Write tell it that a socket write happens before the
// read that gets its bytes, which is how tests order their own memory
// writes before the server's reads through a connection.
func sysRead(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

func sysWrite(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}
