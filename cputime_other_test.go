//go:build !unix

package ordo_test

import "time"

// processCPU is not measured here (the cpu-ns/op figure reads 0).
func processCPU() time.Duration { return 0 }
