package engine

import (
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// usedMemory is sampled in the background: reading the Go runtime's
// memory statistics on every write would cost more than the write.
var usedMemory atomic.Int64

func init() {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			usedMemory.Store(int64(sample[0].Value.Uint64()))
		}
	}
	read()
	go func() {
		for range time.Tick(50 * time.Millisecond) {
			read()
		}
	}()
}

// UsedMemory is the live heap in bytes, as last sampled, plus what big
// sorted sets and hash tables map outside the Go heap.
func UsedMemory() int64 { return usedMemory.Load() + processMapped.MappedBytes() }

// overMaxMemory reports whether maxmemory is set and exceeded. Ordo's
// policy is noeviction: writes that may grow memory are refused, reads
// and deletions keep working.
func (e *Engine) overMaxMemory() bool {
	max := e.Config.Int("maxmemory")
	return max > 0 && UsedMemory() > max
}
