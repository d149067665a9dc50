//go:build !unix

package search

// cpuTime is not measured here (0: the benchmark reports no CPU time).
func cpuTime() int64 { return 0 }
