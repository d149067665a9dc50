package engine

import (
	"runtime"
	"sync/atomic"

	"github.com/ordo-db/ordo/internal/ds/mem"
)

// Memory the data structures map outside the Go heap (packages
// internal/ds/dict and internal/ds/zset) is counted in *mem.Acct
// objects: one per Engine (Engine.acct, given to the dicts and sorted
// sets the engine makes), all of them children of processMapped, which
// keeps the total for UsedMemory (a process-wide figure, as the Go heap
// it is added to).
var processMapped = mem.NewAcct(nil, nudgeGC)

// looseMapped counts the dicts of hashes and sets, which are made where
// no Engine is at hand (listpack/intset conversion, Set.Copy of an
// intset): TEMPORARY, until those constructors are given the engine's
// Acct; their bytes are in processMapped's total but in no Engine's.
var looseMapped = mem.NewAcct(processMapped, nil)

// MappedBytes is what this engine's keyspace dicts and sorted sets map
// outside the Go heap (not the hashes' and sets' dicts yet: see
// looseMapped).
func (e *Engine) MappedBytes() int64 { return e.acct.MappedBytes() }

var gcRunning atomic.Bool

// nudgeGC starts a collection in the background once much memory was
// mapped since the last one by structures whose dead mappings are freed
// by cleanups (sorted sets: mem.Acct.MapPending): cleanups run only after
// a GC, and mapped bytes do not count towards the heap goal, so a
// workload that keeps replacing big sets (ZUNIONSTORE into a temporary
// key, DEL) would otherwise hold dead mappings until heap growth alone
// triggers a cycle. This decision used to live in package zset.
func nudgeGC(a *mem.Acct) {
	since := a.PendingBytes()
	if since < 64<<20 || since < a.MappedBytes()/2 || !gcRunning.CompareAndSwap(false, true) {
		return
	}
	a.ResetPending()
	go func() {
		runtime.GC()
		gcRunning.Store(false)
	}()
}
