//go:build unix

package zset

import "syscall"

func osMap(size int) []byte {
	const page = 4096
	size = (size + page - 1) &^ (page - 1)
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return mem
}

func osUnmap(b []byte) { syscall.Munmap(b) }
