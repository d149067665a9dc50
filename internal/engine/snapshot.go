package engine

// Point-in-time snapshots without holding the lock for the whole dataset:
// BGSAVE's dump.rdb, a replica's full sync (internal/repl) and the AOF
// rewrite's base (internal/aof: BeginSnapshotEncoded, entries in the
// log's own format, streamed to the file by WalkTo) take one.
//
// Redis forks and its child reads a copy-on-write image of the memory.
// Ordo does the same per key: BeginSnapshot (under the lock, O(databases))
// marks the instant T0; Walk then serializes the keys in slices of a few
// hundred, one lock acquisition each, with a cursor scan of each
// database's dict, as SCAN walks it; and before any key is changed for
// the first time after T0, the engine serializes it as it still is
// (capture, called from the few places every change goes through: a
// lookup for writing, setAs, Add, expiry, eviction, TTL changes, loads),
// unless the walk has serialized it already (dict.Visited: the cursor
// has passed its bucket). So every key is written once, with its value
// at T0, whether the walk or the capture wrote it: a key the walk
// reaches after it was captured is skipped (its name is in the captured
// set), and a key created after T0 is "captured" as absent. The keys
// dicts a snapshot walks are not shrunk until it ends (Redis does not
// resize while a child is saving either): a shrink would make the cursor
// return keys twice. Expiry is judged at T0 too.
//
// FLUSHDB, FLUSHALL and the replacement of a dataset during a snapshot do
// not clear the dicts the snapshot walks: they give the database fresh
// dicts and the snapshot keeps walking the old ones (freed when it ends).
// SWAPDB moves dicts between databases: a snapshot follows the dicts it
// started with, so the file holds each database's T0 contents under its
// T0 number.
//
// Collections of deferElems elements or more are not serialized under
// the lock: a deep copy (Typed.Copy, a memory copy for the packed
// encodings) is taken there and serialized when the file is written; a
// slice of the walk ends after such a copy.
//
// The cost is memory: the serialized file (about its size) until it is
// written, the names of the keys changed meanwhile, and the copies of
// big collections. WriteRDB streams it (a replica's diskless transfer
// goes straight to the socket).

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/ordo-db/ordo/internal/ds/dict"
	"github.com/ordo-db/ordo/internal/rdb"
)

// Slicing of the walk: keys per lock acquisition, or bytes.
const (
	snapSliceKeys  = 512
	snapSliceBytes = 256 << 10
	snapDeferElems = 1024
)

// Snapshot is a point-in-time image of the dataset being taken (see
// above). Create it with BeginSnapshot, fill it with Walk, write it with
// WriteRDB.
type Snapshot struct {
	e         *Engine
	now       int64 // T0, unix ms: expiry is judged at it
	compress  bool
	functions [][]byte
	dbs       []*snapDB // by database number at T0
	longest   time.Duration
	ended     bool
	// enc, if set, serializes entries instead of RDB (BeginSnapshotEncoded).
	enc EntryEncoder
	// spare is a slice's buffer handed back by WalkTo once its sink has
	// it: each slice's output is written and done with before the next,
	// and a fresh buffer grown per slice made as much garbage as the
	// whole file per rewrite (the lock held).
	spare []byte
}

// EntryEncoder serializes one key's value as of the snapshot (at: its
// absolute expiry in unix ms, -1 for none), appending to buf. It is
// called under the lock for the keys the walk and the captures
// serialize, so it must not block; collections of snapDeferElems
// elements or more are not given to it but to SnapshotSink.Big.
type EntryEncoder func(buf []byte, key string, v Value, at int64) []byte

// SnapshotSink receives an encoded snapshot as WalkTo produces it.
type SnapshotSink struct {
	// Chunk receives serialized entries of database db (its number at
	// T0): keys of one database come in a row, all of them before the
	// next database's. buf is reused by the snapshot once Chunk returns.
	Chunk func(db int, buf []byte) error
	// Big receives a big collection's private copy, to be serialized
	// without the lock, after its database's chunks.
	Big func(db int, key string, v Value, at int64) error
	// Canceled, if set, is asked between slices: true ends the walk.
	Canceled func() bool
}

// ErrSnapshotCanceled is WalkTo's error when the sink canceled it.
var ErrSnapshotCanceled = errors.New("snapshot canceled")

type snapDB struct {
	id       int               // the database's number at T0, where its keys are written
	keys     *dict.Dict[Value] // the dicts of T0 (they move with SWAPDB)
	expires  *dict.Dict[int64]
	cursor   uint64
	complete bool // walked to the end: no capture needed any more
	detached bool // flushed meanwhile: the dicts are the snapshot's own
	captured map[string]struct{}
	walk     []*snapChunk
	capt     snapChunk
	walkBig  []snapBig
	captBig  []snapBig
}

// snapChunk is serialized entries and how many there are (RESIZEDB's
// hints).
type snapChunk struct {
	buf     []byte
	keys    int
	expires int
}

// snapBig is a big collection copied under the lock, serialized later.
type snapBig struct {
	key string
	v   Value
	at  int64
}

// BeginSnapshot marks T0 and starts tracking changes for a snapshot. The
// caller holds the lock; it must call Walk (and End, which Walk does).
func (e *Engine) BeginSnapshot() *Snapshot {
	s := &Snapshot{e: e, now: NowMs(), compress: e.Config.Bool("rdbcompression"), functions: e.FunctionCodes()}
	s.dbs = make([]*snapDB, len(e.dbs))
	for i, db := range e.dbs {
		s.dbs[i] = &snapDB{id: i, keys: db.keys, expires: db.expires, captured: map[string]struct{}{}, complete: db.keys.Len() == 0}
	}
	e.snaps = append(e.snaps, s)
	return s
}

// BeginSnapshotEncoded is BeginSnapshot with entries serialized by enc
// instead of as RDB entries; write it with WalkTo, not Walk and WriteRDB.
// The AOF rewrite takes one to write its base in the log's own format.
func (e *Engine) BeginSnapshotEncoded(enc EntryEncoder) *Snapshot {
	s := e.BeginSnapshot()
	s.enc = enc
	return s
}

// WalkTo walks the snapshot as Walk does and hands what it serialized to
// out as it goes, database by database (the keys captured meanwhile and
// big collections as they come, the last captured keys once its walk is
// complete: no capture happens after that), so the image is not held in
// memory whole; then it ends the snapshot. The caller does not hold the lock; out's functions are called
// without it.
func (s *Snapshot) WalkTo(out SnapshotSink) error {
	e := s.e
	defer func() {
		e.Lock()
		s.End()
		e.Unlock()
	}()
	var spare []byte
	for _, d := range s.dbs {
		for {
			if out.Canceled != nil && out.Canceled() {
				return ErrSnapshotCanceled
			}
			e.Lock()
			t0 := time.Now()
			s.spare = spare
			if !d.complete {
				s.walkSlice(d)
			}
			done := d.complete
			chunks, bigs := d.walk, d.walkBig
			d.walk, d.walkBig = nil, nil
			// Captured keys are written as they accumulate, not kept
			// to the end: each is a key's whole T0 value, written once,
			// and a big collection's copy (the keys a mixed load writes
			// all the time are captured first) is freed once written.
			bigs = append(bigs, d.captBig...)
			d.captBig = nil
			var capt snapChunk
			takeCapt := done || len(d.capt.buf) >= snapSliceBytes
			if takeCapt {
				capt = d.capt
				d.capt = snapChunk{}
			}
			s.hold(t0)
			e.Unlock()
			if takeCapt {
				chunks = append(chunks, &capt)
			}
			spare = nil
			for _, c := range chunks {
				if len(c.buf) > 0 {
					if err := out.Chunk(d.id, c.buf); err != nil {
						return err
					}
				}
				if cap(c.buf) > cap(spare) && cap(c.buf) <= 2*snapSliceBytes {
					spare = c.buf[:0]
				}
			}
			for _, b := range bigs {
				if err := out.Big(d.id, b.key, b.v, b.at); err != nil {
					return err
				}
			}
			if done {
				break
			}
			runtime.Gosched() // let the clients waiting for the lock in
		}
	}
	return nil
}

// Walk serializes the keys not captured yet, a slice per lock
// acquisition, and ends the snapshot. The caller does not hold the lock.
func (s *Snapshot) Walk() {
	e := s.e
	for _, d := range s.dbs {
		for {
			e.Lock()
			t0 := time.Now()
			if !d.complete {
				s.walkSlice(d)
			}
			done := d.complete
			s.hold(t0)
			e.Unlock()
			if done {
				break
			}
			runtime.Gosched() // let the clients waiting for the lock in
		}
	}
	e.Lock()
	s.End()
	e.Unlock()
}

func (s *Snapshot) hold(t0 time.Time) {
	if d := time.Since(t0); d > s.longest {
		s.longest = d
	}
}

// walkSlice serializes one slice of d's keys (the lock held).
func (s *Snapshot) walkSlice(d *snapDB) {
	c := &snapChunk{buf: s.spare}
	s.spare = nil
	n := 0
	// A big collection's copy ends the slice: several in one (tens of ms
	// each for 200,000-member sorted sets) held the lock for their sum.
	bigs := len(d.walkBig)
	for n < snapSliceKeys && len(c.buf) < snapSliceBytes && len(d.walkBig) == bigs {
		d.cursor = d.keys.Scan(d.cursor, func(k string, v Value) {
			n++
			if _, capt := d.captured[k]; capt {
				return
			}
			s.entry(d, k, v, c, &d.walkBig)
		})
		if d.cursor == 0 {
			d.complete = true
			break
		}
	}
	if c.keys > 0 {
		d.walk = append(d.walk, c)
	}
}

// entry serializes key's value v as of T0 into c, or copies it into big.
func (s *Snapshot) entry(d *snapDB, k string, v Value, c *snapChunk, big *[]snapBig) {
	at := int64(-1)
	if d.expires.Len() > 0 {
		if x, ok := d.expires.Get(k); ok {
			if x < s.now {
				return // expired at T0
			}
			at = x
		}
	}
	if t, ok := v.o.(Typed); ok && t.Len() >= snapDeferElems {
		*big = append(*big, snapBig{key: k, v: Value{o: t.Copy()}, at: at})
		return
	}
	if s.enc != nil {
		n := len(c.buf)
		if c.buf = s.enc(c.buf, k, v, at); len(c.buf) > n {
			c.keys++
			if at != -1 {
				c.expires++
			}
		}
		return
	}
	if rv, ok := toRDB(v); ok {
		c.buf = rdb.AppendEntry(c.buf, []byte(k), rv, at, s.compress)
	} else if j, isJSON := v.o.(*JSON); isJSON { // an aux field (rdbaux.go)
		c.buf = appendJSONAux(c.buf, d.id, k, j, at, s.compress)
	} else {
		return
	}
	c.keys++
	if at != -1 {
		c.expires++
	}
}

// End stops tracking changes and frees the dicts of databases flushed
// meanwhile (the lock held). Walk calls it; a caller giving up calls it.
func (s *Snapshot) End() {
	if s.ended {
		return
	}
	s.ended = true
	e := s.e
	for i, x := range e.snaps {
		if x == s {
			e.snaps = append(e.snaps[:i], e.snaps[i+1:]...)
			break
		}
	}
	for _, d := range s.dbs {
		if d.detached {
			d.keys.Clear()
			d.expires.Clear()
		}
		d.keys, d.expires = nil, nil
	}
}

// LongestHold is the longest time Walk held the lock.
func (s *Snapshot) LongestHold() time.Duration { return s.longest }

// snapCapture is called before key of db changes for the first time
// during a snapshot (the lock held).
func (e *Engine) snapCapture(db *DB, key string) {
	for _, s := range e.snaps {
		s.capture(db, key)
	}
}

func (s *Snapshot) capture(db *DB, key string) {
	d := s.find(db.keys)
	if d == nil || d.complete {
		return
	}
	if _, ok := d.captured[key]; ok {
		return
	}
	k := strings.Clone(key)
	d.captured[k] = struct{}{}
	if d.keys.Visited(d.cursor, k) {
		return // the walk wrote its T0 value
	}
	if v, ok := d.keys.Get(k); ok {
		s.entry(d, k, v, &d.capt, &d.captBig)
	}
}

// snapWalks reports whether a snapshot still walks keys: then the dict
// must not shrink (see above; the lock held).
func (e *Engine) snapWalks(keys *dict.Dict[Value]) bool {
	for _, s := range e.snaps {
		if d := s.find(keys); d != nil && !d.complete {
			return true
		}
	}
	return false
}

// shrinkKeys shrinks db's keys dict if it is mostly empty, unless a
// snapshot walks it.
func (e *Engine) shrinkKeys(db *DB) {
	if len(e.snaps) == 0 || !e.snapWalks(db.keys) {
		db.keys.ShrinkIfNeeded()
	}
}

// find returns the state of the snapshot's database walking keys, nil if
// none does (a dict created after T0).
func (s *Snapshot) find(keys *dict.Dict[Value]) *snapDB {
	for _, d := range s.dbs {
		if d.keys == keys {
			return d
		}
	}
	return nil
}

// snapHolds reports whether a running snapshot still walks db's dicts
// (then a flush must not clear them; the lock held).
func (e *Engine) snapHolds(db *DB) bool {
	held := false
	for _, s := range e.snaps {
		if d := s.find(db.keys); d != nil && !d.complete {
			d.detached = true
			held = true
		}
	}
	return held
}

// WriteRDB writes the snapshot as an RDB file with the aux fields given
// (key, value pairs) after Redis's; it needs no lock. It returns the
// number of keys written. It frees what it has written as it goes, so it
// is called once.
func (s *Snapshot) WriteRDB(w io.Writer, aux ...string) (int, error) {
	wr := s.e.rdbWriter(w, aux)
	for _, code := range s.functions {
		wr.Function(code)
	}
	total := 0
	for i, d := range s.dbs {
		chunks := append(d.walk[:len(d.walk):len(d.walk)], &d.capt)
		bigs := append(d.walkBig[:len(d.walkBig):len(d.walkBig)], d.captBig...)
		keys, expires := 0, 0
		for _, c := range chunks {
			keys += c.keys
			expires += c.expires
		}
		// The counts are RESIZEDB's hints: a value Ordo cannot write
		// (a big JSON document) leaves them one too high, which is harmless.
		for _, b := range bigs {
			keys++
			if b.at != -1 {
				expires++
			}
		}
		if keys == 0 {
			continue
		}
		wr.SelectDB(i, uint64(keys), uint64(expires))
		for _, c := range chunks {
			wr.Raw(c.buf)
			c.buf = nil // written: the file need not stay in memory whole
		}
		for _, b := range bigs {
			if rv, ok := toRDB(b.v); ok {
				wr.Entry([]byte(b.key), rv, b.at)
			}
		}
		total += keys
	}
	return total, wr.Close()
}
