//go:build unix

package engine

import "syscall"

func dictOSMap(size int) []byte {
	const page = 4096
	size = (size + page - 1) &^ (page - 1)
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return mem
}

func dictOSUnmap(b []byte) { syscall.Munmap(b) }
