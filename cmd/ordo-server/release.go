package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/ordo-db/ordo/internal/sysinfo"
)

// Returning free heap memory when the server goes quiet.
//
// Go's runtime keeps the heap pages it freed until the heap outgrows its
// goal (twice the live heap by default): after a burst of writes that
// left garbage behind (a bulk load, a list whose chunks were repacked) an
// idle ordo-server kept several MB of free pages resident, up to the
// live heap's size. jemalloc, under redis-server, returns dirty pages
// after a delay by itself. releaseWhenQuiet does the same for Go's heap:
// every releaseEvery it looks at the runtime's metrics, and when no
// garbage collection ran since its last look and the process used less
// than a twentieth of a core meanwhile (sysinfo.ProcessCPU: the server
// is quiet or nearly) and
// either the free pages still held
// or the heap allocated since the last collection (garbage, until a
// collection tells) are more than releaseMin and an eighth of the live
// heap, it runs debug.FreeOSMemory (one collection, then every free page
// returned).
// Under load it does nothing, so it never adds collections to a busy
// server; a quiet one pays at most one per burst of garbage. "No
// collection since the last look" alone did not tell load from quiet,
// nor did the heap's allocations (the engine keeps most data off the Go
// heap and allocates little per command), nor the runtime's CPU metrics
// (updated only by collections): under the soak's load
// (bench/soak.go) half of the collections were forced this way, each
// returning every free page, re-faulted right after, with the scavenger
// holding the only P (GOMAXPROCS 1) while it ran. This is the server
// process's policy, not the engine's: an embedded DB leaves the Go
// program's heap to the program.
const (
	releaseEvery = 500 * time.Millisecond
	releaseMin   = 2 << 20
)

func releaseWhenQuiet(tuneGC bool) {
	samples := []metrics.Sample{
		{Name: "/gc/cycles/total:gc-cycles"},
		{Name: "/memory/classes/heap/free:bytes"},    // free, not yet returned
		{Name: "/memory/classes/heap/objects:bytes"}, // live, and dead not yet swept
		{Name: "/gc/heap/live:bytes"},                // marked live by the last collection
	}
	var lastGC uint64
	var lastCPU time.Duration
	percent := gcPercentFor(0)
	for range time.Tick(releaseEvery) {
		metrics.Read(samples)
		gcs, free, objects, live := samples[0].Value.Uint64(), samples[1].Value.Uint64(),
			samples[2].Value.Uint64(), samples[3].Value.Uint64()
		if p := gcPercentFor(live); tuneGC && p != percent {
			debug.SetGCPercent(p) // gc.go
			percent = p
		}
		cpu := sysinfo.ProcessCPU() // 0 where unknown: then only collections tell
		quiet := gcs == lastGC && cpu-lastCPU < releaseEvery/20
		if quiet && worthReleasing(free, objects, live) {
			debug.FreeOSMemory()
			metrics.Read(samples)
			gcs, cpu = samples[0].Value.Uint64(), sysinfo.ProcessCPU()
		}
		lastGC, lastCPU = gcs, cpu
	}
}

// worthReleasing reports whether a quiet server should collect and
// return its free pages: free pages held, or heap allocated since the
// last collection (objects above what it found live), of more than
// releaseMin and an eighth of the live heap.
func worthReleasing(free, objects, live uint64) bool {
	grown := objects - min(objects, live)
	return free > releaseMin && free > live/8 || grown > releaseMin && grown > live/8
}
