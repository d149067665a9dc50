//go:build !unix

package mem

// MapAnon returns nil: without mmap, callers keep their arrays on the Go
// heap.
func MapAnon(size int) []byte { return nil }

// UnmapAnon does nothing.
func UnmapAnon(b []byte) {}
