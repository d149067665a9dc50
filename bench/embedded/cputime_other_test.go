//go:build !unix

package embedded

// processCPU is 0 where getrusage is not available.
func processCPU() int64 { return 0 }
