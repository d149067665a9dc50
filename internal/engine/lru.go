package engine

// Each key's access clock, as Redis keeps it in every object's 24-bit lru
// field (and evict.c reads it): under an LFU maxmemory-policy a
// logarithmic access counter with the minute of its last decrement, under
// any other policy the second of the last access. OBJECT IDLETIME, OBJECT
// FREQ and DEBUG OBJECT report it. Ordo keeps it per key (Redis per
// object: the shared integers 0..9999 share one clock in Redis).
//
// A lookup touches the key (Redis's lookupKey) except in the commands
// that only inspect (TYPE, EXISTS, TTL ..., OBJECT), and except for a
// client in CLIENT NO-TOUCH mode unless it runs TOUCH.

import "math/rand/v2"

const (
	lruClockMax = 1<<24 - 1
	lfuInitVal  = 5
)

// lruClock is Redis's LRU_CLOCK, seconds on 24 bits, with the fraction
// of the second in 1/256 s in the 8 bits above (Redis's field has 24
// bits, Ordo's 32): the eviction pool then orders the accesses of one
// second, which Redis cannot, so a key read a moment ago is not evicted
// before one untouched since earlier in the same second. OBJECT IDLETIME,
// DEBUG OBJECT and RDB's IDLE see the 24 bits of seconds, as in Redis.
func lruClock(nowMs int64) uint32 {
	return uint32(nowMs/1000)&lruClockMax | uint32(nowMs%1000*256/1000)<<24
}

// lfuMinutes is Redis's LFUGetTimeInMinutes: minutes, on 16 bits.
func lfuMinutes(nowMs int64) uint32 { return uint32(nowMs/60000) & 65535 }

// newMeta is the clock of a value created now (createObject).
func (c *Ctx) newMeta() uint32 {
	if c.E.Config.LFU() {
		return lfuMinutes(c.Now)<<8 | lfuInitVal
	}
	return lruClock(c.Now)
}

// touchMeta is lookupKey's update of an accessed key's clock.
func (c *Ctx) touchMeta(m uint32) uint32 {
	if !c.E.Config.LFU() {
		return lruClock(c.Now)
	}
	counter := c.lfuDecr(m)
	if counter < 255 {
		// LFULogIncr: the more accesses, the less likely another counts.
		base := max(float64(counter)-lfuInitVal, 0)
		p := 1 / (base*float64(c.E.Config.Int("lfu-log-factor")) + 1)
		if rand.Float64() < p {
			counter++
		}
	}
	return lfuMinutes(c.Now)<<8 | counter
}

// lfuDecr is Redis's LFUDecrAndReturn: the counter, decremented once per
// lfu-decay-time minutes since its last decrement.
func (c *Ctx) lfuDecr(m uint32) uint32 {
	ldt, counter := m>>8&65535, m&255 // (bits above 24: an LRU clock's fraction, after a policy change)
	decay := c.E.Config.Int("lfu-decay-time")
	if decay <= 0 {
		return counter
	}
	now := lfuMinutes(c.Now)
	elapsed := now - ldt
	if now < ldt {
		elapsed = 65535 - ldt + now
	}
	periods := int64(elapsed) / decay
	if periods >= int64(counter) {
		return 0
	}
	return counter - uint32(periods)
}

// idleMs is Redis's estimateObjectIdleTime: milliseconds since the access
// an LRU clock records, in whole seconds.
func (c *Ctx) idleMs(m uint32) int64 {
	m &= lruClockMax
	now := lruClock(c.Now) & lruClockMax
	if now >= m {
		return int64(now-m) * 1000
	}
	return int64(now+(lruClockMax-m)) * 1000
}

// lruAccessMs is the time, in unix ms to 1/256 s, of the access an LRU
// clock records: the latest such time not after now (the clock wraps
// every 194 days, as Redis's).
func (c *Ctx) lruAccessMs(m uint32) int64 {
	return c.Now/1000*1000 - c.idleMs(m) + int64(m>>24)*1000/256
}

// keyMeta returns the clock of key (0 if absent), without touching it.
func (db *DB) keyMeta(key string) uint32 {
	if _, m, ok := db.keys.GetMeta(key); ok && m != nil {
		return *m
	}
	return 0
}

// setMeta sets the clock of key, if present.
func (db *DB) setMeta(key string, v uint32) {
	if _, m, ok := db.keys.GetMeta(key); ok && m != nil {
		*m = v
	}
}

// restoreMeta is Redis's objectSetLRUOrLFU for RESTORE: under an LFU
// policy FREQ sets the counter, under the others IDLETIME (seconds) sets
// the time of the last access; -1 leaves the new key's clock.
func (c *Ctx) restoreMeta(key []byte, freq, idle int64) {
	if c.E.Config.LFU() {
		if freq >= 0 {
			c.DB.setMeta(view(key), lfuMinutes(c.Now)<<8|uint32(freq))
		}
		return
	}
	if idle >= 0 {
		abs := int64(lruClock(c.Now)&lruClockMax) - idle
		if abs < 0 {
			abs += lruClockMax
		}
		c.DB.setMeta(view(key), uint32(abs)&lruClockMax) // a 24-bit field
	}
}
