package engine

// # Memory accounting
//
// Each engine counts the memory of its own data, so that maxmemory and
// INFO's used_memory mean this instance's dataset, never the rest of the
// process (an application embedding Ordo, or a second engine). Every
// database keeps a running total of MEMORY USAGE's estimate for each of
// its keys: a key's size is added when the key is stored, subtracted when
// it is deleted, replaced, expired or flushed, and re-measured when a
// command changes a collection in place (Ctx.Modified). A collection
// remembers the size it was counted with (sized), so the adjustment is the
// difference. Sizes of hash tables, sorted sets and sets are O(1) to
// measure, lists too (they keep running totals); a JSON document's is
// O(its nodes).

// sized is embedded in every collection type: the bytes it is counted for
// in its database's total.
type sized struct{ counted int64 }

func (s *sized) countedBytes() *int64 { return &s.counted }

type accounted interface{ countedBytes() *int64 }

// engineBaseline is what an engine takes before it holds any key: its
// command table, databases and clients, as Redis's used_memory counts its
// startup allocations. It keeps a limit below it meaningful as in Redis
// (maxmemory 1 refuses every write).
const engineBaseline = 512 << 10

// keyBytes is the size a key counts for, holding v, and for a collection
// records it as the counted size.
func keyBytes(key string, v Value) int64 {
	n := keyMemoryUsage(key, v)
	if a, ok := v.o.(accounted); ok {
		*a.countedBytes() = n
	}
	return n
}

// countedBytes is the size key holding v was counted for.
func countedBytes(key string, v Value) int64 {
	if a, ok := v.o.(accounted); ok {
		return *a.countedBytes()
	}
	return keyMemoryUsage(key, v)
}

// UsedMemory is the memory this engine's data takes, in bytes: the
// estimates of its keys (MEMORY USAGE), the key table's buckets, the
// expires table and a fixed baseline. Call it with the lock held.
//
// Each key is counted once. Its MEMORY USAGE already holds 24 bytes for
// its table entry (Redis's dictEntry), more than the key table's own
// per-key cost (a 12-byte entry and the 4-byte access clock of lru.go),
// so the table adds only its buckets, the one cost that is not per key,
// as Redis's used_memory adds its bucket array. Counting the entries a
// second time made a key cost 16 bytes more in used_memory than it
// did in the total that maxmemory was set from, a fixed part that does
// not shrink with eviction: with maxmemory at half of what 100,000 keys
// took, Ordo kept 43.7% of them, Redis 46.3%. Entry slots freed by
// deletions are kept for new keys (as an allocator keeps freed memory),
// and are not counted, as Redis's used_memory does not count its
// allocator's free memory; MEMORY STATS's overhead.hashtable.main
// reports the whole table.
func (e *Engine) UsedMemory() int64 {
	n := int64(engineBaseline)
	for _, db := range e.dbs {
		n += db.used + int64(db.keys.Buckets())*4 + db.expires.Bytes()
	}
	return n
}
