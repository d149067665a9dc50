package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is ordo-server's GOGC when the environment does not set one.
//
// Go's default, 100, lets the heap grow to twice what the last collection
// found live. Most of the engine's live heap is its keyspace dicts (long
// lived, cheap to mark), so the collector's cost is small either way,
// while the headroom is resident memory: under the soak (bench/soak.go:
// 200,000 keys and big collections, AOF rewrites every few seconds, whose
// copies of big collections live until written) the live heap moved
// between 40 and 60 MiB and the goal reached 110 MiB, RSS 143 MiB against
// redis-server's 108. At 50 the peak was 112 against 110 MiB, for about
// 0.5% of a core in collections (twice as many cycles: 81 against 42 in
// a 60 s run) and no collection among the causes of the slow PINGs in the
// runtime trace; sorted sets' off-heap copies, freed by cleanups after a
// collection, are also returned sooner. This is the server process's
// policy, like releaseWhenQuiet's: an embedded DB leaves the program's
// collector alone.
const gcPercent = 50

// setGCPercent applies gcPercent unless GOGC is set (including "off").
func setGCPercent() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(gcPercent)
	}
}
