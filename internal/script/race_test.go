//go:build race

package script_test

// raceEnabled shortens the scripts of timing tests under the race detector.
const raceEnabled = true
