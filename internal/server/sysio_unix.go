//go:build unix && (!linux || race)

package server

import "syscall"

// sysRead and sysWrite: see sysio_linux.go; elsewhere, and under the
// race detector, the ordinary syscalls (on darwin they go through libc).
func sysRead(fd int, p []byte) (int, error)  { return syscall.Read(fd, p) }
func sysWrite(fd int, p []byte) (int, error) { return syscall.Write(fd, p) }
