//go:build unix

package mem

import "syscall"

// MapAnon maps size bytes (rounded up to a page) of zeroed anonymous
// memory, or returns nil if the OS refuses. The caller counts it.
func MapAnon(size int) []byte {
	const page = 4096
	size = (size + page - 1) &^ (page - 1)
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return mem
}

// UnmapAnon returns a mapping made by MapAnon to the OS. Nothing may
// reference b afterwards.
func UnmapAnon(b []byte) { syscall.Munmap(b) }
