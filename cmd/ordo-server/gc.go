package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is ordo-server's GOGC when the environment does not set one.
//
// Go's default, 100, lets the heap grow to twice what the last collection
// found live, and that headroom is resident memory. The collector's CPU
// is proportional to the allocation rate over GOGC, and the engine
// allocates little per command, so a lower GOGC costs little. Under the
// soak (bench/soak.go: 200,000 keys and big collections, AOF rewrites
// every few seconds whose copies of big collections live until written;
// one 60 s run per setting against redis-server in the same run, on a
// shared machine at load 10-15) the live heap moved between 40 and 60 MiB:
//
//	GOGC  RSS ordo / redis   collections  GC CPU  longest assist
//	100   92-143 / 93-108    42           82 ms   7 ms
//	50    68-112 / 77-110    81           115 ms  6.5 ms
//	30    67-97 / 58-107     140          218 ms  12 ms
//
// (collections and CPU over the run and the restart after it, from
// GODEBUG=gctrace=1). At 30 the collector used about 0.3% of a core, and
// in the runtime trace collections were a small part of the slowest
// PINGs' waits (20 of 440 ms in the worst 1%; the rest the rewrite's copy
// of a big sorted set and the machine's preemptions). Sorted sets' off-heap
// copies, freed by cleanups after a collection, are also returned sooner.
//
// A small heap is another matter: the collector's pacing has a floor of
// 4 MiB × GOGC/100 of heap, so at 30 a server whose live heap is a few
// MiB (most of the engine's data is off the Go heap) collected every 1.2
// MiB of garbage: the bench's XREADGROUP + XACK rows fell from 1.02 /
// 1.06 of redis-server's rate to 0.89 / 0.84 and SORT BY from 0.90 / 1.14
// to 0.82 / 1.00. So the percent follows the live heap (gcPercentFor):
// at least gcMinHeadroom of headroom, never above Go's 100 nor below
// gcPercent; releaseWhenQuiet's loop, which reads the live heap anyway,
// sets it. This is the server process's policy, like releaseWhenQuiet's:
// an embedded DB leaves the program's collector alone.
const (
	gcPercent     = 30
	gcMinHeadroom = 16 << 20
)

// gcPercentFor is the GC percent for a live heap of live bytes.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return 100
	}
	return int(min(100, max(gcPercent, gcMinHeadroom*100/live)))
}

// setGCPercent sets Go's default, 100, unless GOGC is set (including
// "off"), and tells whether the percent is ordo-server's to tune.
func setGCPercent() bool {
	if _, ok := os.LookupEnv("GOGC"); ok {
		return false
	}
	debug.SetGCPercent(gcPercentFor(0))
	return true
}
