//go:build !race

package script_test

const raceEnabled = false
