//go:build race

package engine_test

// raceEnabled skips the differential runs of commands that take seconds
// of CPU (PFSELFTEST) under the race detector, where they would run into
// the harness's read timeout; their code is still tested by their own
// package's tests.
const raceEnabled = true
