package engine

import (
	"math/rand/v2"
	"strings"
	"unsafe"

	"github.com/ordo-db/ordo/internal/ds/hll"
)

// HyperLogLog commands (Redis's hyperloglog.c): PFADD, PFCOUNT, PFMERGE,
// PFDEBUG and PFSELFTEST on string values in Redis's own representation
// (internal/ds/hll), so GET of an HLL returns redis-server's bytes and a
// string written by redis-server is accepted.
//
// # Writing in place
//
// Strings in the keyspace are immutable Go strings: the keys dict hands
// them out as they are, and COPY, RENAME and MOVE share or move them. So
// a bit command copies the string it changes. The HLL commands copy only
// the first time: the buffer they store is their own (marked encOwned,
// ownedHLL), and the next PFADD, PFMERGE, PFCOUNT (its cache) or PFDEBUG
// to the key writes its registers in place, as Redis does, instead of
// copying 12 KiB per change of a dense HLL. That is safe because nothing
// keeps the bytes of a string value beyond the command that read it
// without copying them: replies (GET, GETRANGE, DUMP, a script's
// redis.call, the embedded API) copy into the reply buffer under the
// lock; a snapshot (BGSAVE, a replica's full sync, the AOF rewrite)
// serializes a key before a write command's lookup returns it (the
// capture in DB.lookup) and a string is never deferred; COPY gives the
// copy bytes of its own (copyValue); RENAME and MOVE move the value, one
// holder still. Any other write to the string (SETBIT, APPEND, SET ...)
// stores a new, unmarked value. Writing in place under the lock is then
// invisible but through the key itself.

const (
	ErrHLLType    = "WRONGTYPE Key is not a valid HyperLogLog string value."
	ErrHLLCorrupt = "INVALIDOBJ Corrupted HLL object detected"
)

func registerHLL(t *Table) {
	t.register("pfadd", pfaddCommand)
	t.register("pfcount", pfcountCommand)
	t.register("pfmerge", pfmergeCommand)
	t.register("pfdebug", pfdebugCommand)
	t.register("pfselftest", pfselftestCommand)
}

// lookupHLL is Redis's lookup plus isHLLObjectOrReply: the HLL at key
// (nil, found false if missing); ok is false after an error reply
// (WRONGTYPE for another type or a string that is not an HLL).
func lookupHLL(c *Ctx, key []byte) (v Value, b []byte, found, ok bool) {
	v, found = c.Lookup(key)
	if !found {
		return v, nil, false, true
	}
	if !v.isString() {
		c.W.Error(ErrWrongType)
		return v, nil, true, false
	}
	b = bytesOf(v.s) // only read: written through a copy
	if !hll.Valid(b) {
		c.W.Error(ErrHLLType)
		return v, nil, true, false
	}
	return v, b, true, true
}

// cloneHLL copies b (append rounds the capacity up to a size class,
// room for a sparse update's growth, and does not zero what it copies).
func cloneHLL(b []byte) []byte { return append([]byte(nil), b...) }

// ownedHLL returns the bytes of v for writing in place if v is a buffer
// stored by storeHLL (see "Writing in place" above), else nil.
func ownedHLL(v Value) []byte {
	if r, ok := v.o.(rawString); ok && r.enc == encOwned {
		return unsafe.Slice(unsafe.StringData(v.s), len(v.s))
	}
	return nil
}

// writableHLL is b, the bytes of the HLL value v, ready to be written:
// v's own buffer if it is owned, else a copy.
func writableHLL(v Value, b []byte) []byte {
	if w := ownedHLL(v); w != nil {
		return w
	}
	return cloneHLL(b)
}

// storeHLL stores b, a buffer of the command's (writableHLL, or one
// allocated by package hll), at key as a changed value: if b is v's own
// buffer, written in place, the change is only signalled (a snapshot has
// captured the key at the write command's lookup); else b is stored,
// marked as the key's own.
func storeHLL(c *Ctx, key []byte, v Value, b []byte, found bool) {
	if found && len(b) == len(v.s) && len(b) > 0 && unsafe.StringData(v.s) == &b[0] && ownedHLL(v) != nil {
		c.Modified(key)
		return
	}
	nv := Value{s: view(b), o: rawString{encOwned}} // b is never written but through the key
	if found {
		c.Set(key, nv, true)
	} else {
		c.Add(key, nv)
	}
}

// unshareHLL is unshareBitmap, keeping an owned value as it is (it is
// raw already).
func unshareHLL(c *Ctx, key []byte, v Value) {
	if ownedHLL(v) == nil {
		unshareBitmap(c, key, v)
	}
}

func hllSparseMax(c *Ctx) int64 { return c.E.Config.hot().hllSparseMaxBytes }

func pfaddCommand(c *Ctx) {
	key := c.Args[1]
	v, b, found, ok := lookupHLL(c, key)
	if !ok {
		return
	}
	updated := 0
	owned := false
	if !found {
		b, owned, updated = hll.New(), true, 1
	}
	sparseMax := hllSparseMax(c)
	for _, ele := range c.Args[2:] {
		idx, n := hll.PatLen(ele)
		if !hll.NeedsSet(b, idx, n) {
			continue
		}
		if !owned {
			b, owned = writableHLL(v, b), true
		}
		var r int
		if b, r = hll.Set(b, idx, n, sparseMax); r < 0 {
			// Redis keeps what it wrote in place before finding the
			// corruption, without propagating it.
			if updated > 0 {
				storeHLL(c, key, v, b, found)
			} else {
				unshareHLL(c, key, v)
			}
			c.W.Error(ErrHLLCorrupt)
			return
		}
		updated += r
	}
	if updated > 0 {
		hll.Invalidate(b)
		storeHLL(c, key, v, b, found)
		c.Dirty(updated)
		c.W.Int(1)
		return
	}
	unshareHLL(c, key, v)
	c.W.Int(0)
}

func pfcountCommand(c *Ctx) {
	if len(c.Args) > 2 {
		// The cardinality of the union.
		var regs [hll.Registers]uint8
		for _, k := range c.Args[1:] {
			_, b, found, ok := lookupHLL(c, k)
			if !ok {
				return
			}
			if found && hll.Merge(&regs, b) != nil {
				c.W.Error(ErrHLLCorrupt)
				return
			}
		}
		c.W.Int(int64(hll.CountRegisters(&regs)))
		return
	}
	key := c.Args[1]
	v, b, found, ok := lookupHLL(c, key)
	if !ok {
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	unshareHLL(c, key, v)
	if card, valid := hll.Cached(b); valid {
		c.W.Int(int64(card))
		return
	}
	card, err := hll.Count(b)
	if err != nil {
		c.W.Error(ErrHLLCorrupt)
		return
	}
	// The cache is part of the value: storing it is a change, propagated
	// as Redis propagates it (PFCOUNT itself).
	b = writableHLL(v, b)
	hll.SetCache(b, card)
	storeHLL(c, key, v, b, true)
	c.Dirty(1)
	c.W.Int(int64(card))
}

func pfmergeCommand(c *Ctx) {
	var regs [hll.Registers]uint8
	useDense := false
	for _, k := range c.Args[1:] {
		_, b, found, ok := lookupHLL(c, k)
		if !ok {
			return
		}
		if !found {
			continue
		}
		if hll.Encoding(b) == hll.Dense {
			useDense = true
		}
		if hll.Merge(&regs, b) != nil {
			c.W.Error(ErrHLLCorrupt)
			return
		}
	}
	key := c.Args[1]
	c.noStats = true                    // the write's own lookup: not counted (Redis's lookupKeyWrite)
	v, b, found, _ := lookupHLL(c, key) // checked above
	c.noStats = false
	if found {
		b = writableHLL(v, b)
	} else {
		b = hll.New()
	}
	if useDense {
		d, err := hll.ToDense(b)
		if err != nil {
			if !found { // Redis has already added the new key
				storeHLL(c, key, v, b, found)
			}
			c.W.Error(ErrHLLCorrupt)
			return
		}
		b = d
	}
	sparseMax := hllSparseMax(c)
	for j, n := range regs {
		if n != 0 {
			b, _ = hll.Set(b, j, n, sparseMax)
		}
	}
	hll.Invalidate(b)
	storeHLL(c, key, v, b, found)
	c.Dirty(1)
	c.W.Simple("OK")
}

func pfdebugCommand(c *Ctx) {
	sub := string(c.Args[1])
	key := c.Args[2]
	v, b, found, ok := lookupHLL(c, key)
	if !ok {
		return
	}
	if !found {
		c.W.Error("ERR The specified key does not exist")
		return
	}
	unshareHLL(c, key, v)
	arity := func() bool {
		if len(c.Args) != 3 {
			c.W.Error("ERR Wrong number of arguments for the '" + sub + "' subcommand")
			return false
		}
		return true
	}
	// toDense converts a sparse HLL, propagated as Redis forces it.
	toDense := func() (converted, ok bool) {
		if hll.Encoding(b) == hll.Dense {
			return false, true
		}
		d, err := hll.ToDense(b)
		if err != nil {
			c.W.Error(ErrHLLCorrupt)
			return false, false
		}
		b = d
		storeHLL(c, key, v, b, true)
		c.Dirty(1)
		return true, true
	}
	switch strings.ToLower(sub) {
	case "getreg":
		if !arity() {
			return
		}
		if _, ok := toDense(); !ok {
			return
		}
		regs := hll.DenseRegisters(b)
		c.W.Array(len(regs))
		for _, r := range regs {
			c.W.Int(int64(r))
		}
	case "decode":
		if !arity() {
			return
		}
		if hll.Encoding(b) != hll.Sparse {
			c.W.Error("ERR HLL encoding is not sparse")
			return
		}
		c.W.BulkString(hll.Decode(b))
	case "encoding":
		if !arity() {
			return
		}
		if hll.Encoding(b) == hll.Dense {
			c.W.Simple("dense")
		} else {
			c.W.Simple("sparse")
		}
	case "todense":
		if !arity() {
			return
		}
		converted, ok := toDense()
		if !ok {
			return
		}
		if converted {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
	default:
		c.W.Error("ERR Unknown PFDEBUG subcommand '" + sub + "'")
	}
}

func pfselftestCommand(c *Ctx) {
	rng := rand.New(rand.NewPCG(uint64(c.Now), 0x4859_4c4c))
	if err := hll.SelfTest(hllSparseMax(c), rng); err != nil {
		c.W.Error(err.Error())
		return
	}
	c.W.Simple("OK")
}
