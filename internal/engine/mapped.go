package engine

import (
	"runtime"

	"github.com/ordo-db/ordo/internal/ds/mem"
)

// Memory the data structures map outside the Go heap (packages
// internal/ds/dict and internal/ds/zset) is counted in a *mem.Acct per
// Engine (Engine.acct, given to the keyspace dicts and sorted sets the
// engine makes). The dicts of hashes and sets, made where no engine is at
// hand (listpack and intset conversion), are not counted there: they
// unmap explicitly and need no collection. maxmemory does not use these
// counts; it uses the per-key estimates (memory.go).

// MappedBytes is what this engine's keyspace dicts and sorted sets map
// outside the Go heap.
func (e *Engine) MappedBytes() int64 { return e.acct.MappedBytes() }

// nudgeGC starts a collection in the background once much memory was
// mapped since the last one by structures whose dead mappings are freed
// by cleanups (sorted sets: mem.Acct.MapPending): cleanups run only after
// a GC, and mapped bytes do not count towards the heap goal, so a
// workload that keeps replacing big sets (ZUNIONSTORE into a temporary
// key, DEL) would otherwise hold dead mappings until heap growth alone
// triggers a cycle. It is per engine (one nudge at a time each) and only
// past 64 MiB of dead-or-new mappings, so a host program sees it only
// when its database churns through big sorted sets.
func (e *Engine) nudgeGC(a *mem.Acct) {
	since := a.PendingBytes()
	if since < 64<<20 || since < a.MappedBytes()/2 || !e.gcRunning.CompareAndSwap(false, true) {
		return
	}
	a.ResetPending()
	go func() {
		runtime.GC()
		e.gcRunning.Store(false)
	}()
}
