package repl

// A full sync's RDB without holding the engine lock for the whole file:
// the approach of the AOF's background rewrite (internal/aof), on the
// replication stream this package already sees. Under the lock, once,
// the names of the keys are listed; then, in slices of a few thousand
// keys (one lock acquisition each), every key that no change has touched
// since is serialized; feed marks the keys each propagated change names
// as touched. In a last step under the lock the touched keys are
// serialized as they are then, and the replication offset is read: the
// file is the dataset at that point, the stream goes on from it. An
// untouched key has not changed since it was listed, so its entry is its
// value at the end too. A change the tracking cannot follow (FLUSHALL,
// FLUSHDB, SWAPDB, a change without keys) makes the last step write the
// whole file under the lock, as before.

import (
	"bytes"
	"strconv"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
)

// Slicing: keys serialized per lock acquisition, or bytes.
const (
	snapSliceKeys  = 512
	snapSliceBytes = 256 << 10
)

type snapChunk struct {
	buf  []byte
	keys []string
	ends []int
	ttl  []bool
}

type snapDB struct {
	chunks  []*snapChunk
	touched map[string]struct{}
}

type snapshot struct {
	dbs   []*snapDB
	abort bool
}

// track is feed's part: the keys a propagated change names (the engine
// lock and r.mu held).
func (s *snapshot) track(e *engine.Engine, db int, args [][]byte) {
	if s.abort || len(args) == 0 {
		return
	}
	switch {
	case engine.EqualFold(args[0], "multi"), engine.EqualFold(args[0], "exec"), engine.EqualFold(args[0], "select"),
		engine.EqualFold(args[0], "ping"), engine.EqualFold(args[0], "replconf"), engine.EqualFold(args[0], "publish"),
		engine.EqualFold(args[0], "spublish"), engine.EqualFold(args[0], "function"):
		// No key data (function libraries are read in the last step).
		return
	}
	cmd := e.Lookup(args)
	var idx []int
	if cmd != nil {
		idx = cmd.KeyIndexes(args)
	}
	if len(idx) == 0 || db < 0 || db >= len(s.dbs) {
		s.abort = true
		return
	}
	touch := func(d int, k []byte) {
		if d >= 0 && d < len(s.dbs) {
			s.dbs[d].touched[string(k)] = struct{}{}
		}
	}
	for _, i := range idx {
		if i < len(args) {
			touch(db, args[i])
		}
	}
	switch {
	case engine.EqualFold(args[0], "move") && len(args) > 2:
		if d, ok := engine.ParseInt(args[2]); ok {
			touch(int(d), args[1])
		}
	case engine.EqualFold(args[0], "copy") && len(args) > 3:
		for i := 3; i+1 < len(args); i++ {
			if engine.EqualFold(args[i], "db") {
				if d, ok := engine.ParseInt(args[i+1]); ok {
					touch(int(d), args[2])
				}
			}
		}
	}
}

// slicedFullSync prepares l's full sync (l.rdb, l.sent) from a snapshot
// taken in slices, and returns the +FULLRESYNC reply when psync; it takes
// the engine lock itself. It reports the longest lock hold.
func (r *Replica) slicedFullSync(l *link, psync bool) (reply string, longest time.Duration, err error) {
	e := r.e
	hold := func(t0 time.Time) {
		if d := time.Since(t0); d > longest {
			longest = d
		}
	}
	e.Lock()
	t0 := time.Now()
	r.mu.Lock()
	if l.kicked || r.backlog == nil {
		r.mu.Unlock()
		e.Unlock()
		return "", 0, errStaleLink
	}
	s := &snapshot{dbs: make([]*snapDB, len(e.DBs()))}
	for i := range s.dbs {
		s.dbs[i] = &snapDB{touched: map[string]struct{}{}}
	}
	l.snap = s
	r.mu.Unlock()
	hold(t0)
	e.Unlock()
	defer func() {
		r.mu.Lock()
		l.snap = nil
		r.mu.Unlock()
	}()

	// The walk: a SCAN-like cursor per database, a slice of keys per lock
	// acquisition. A key present throughout is seen at least once (twice
	// if the table shrank meanwhile: duplicates are dropped when the file
	// is assembled); a key created meanwhile is touched.
	var batch []string
	for di, d := range s.dbs {
		var cursor uint64
		for done := false; !done; {
			e.Lock()
			t0 := time.Now()
			if s.abort {
				e.Unlock()
				break
			}
			db := e.DBs()[di]
			batch = batch[:0]
			for len(batch) < snapSliceKeys {
				cursor = db.ScanKeys(cursor, func(k string) { batch = append(batch, k) })
				if cursor == 0 {
					done = true
					break
				}
			}
			c := &snapChunk{}
			now := engine.NowMs()
			for _, k := range batch {
				if _, t := d.touched[k]; t {
					continue
				}
				var ok, ttl bool
				c.buf, ok, ttl = e.AppendRDBKey(c.buf, di, k, now)
				if ok {
					c.keys = append(c.keys, k)
					c.ends = append(c.ends, len(c.buf))
					c.ttl = append(c.ttl, ttl)
				}
			}
			if len(c.keys) > 0 {
				d.chunks = append(d.chunks, c)
			}
			hold(t0)
			e.Unlock()
		}
	}

	// The last step: the touched keys as they are now, and the offset.
	e.Lock()
	t0 = time.Now()
	r.mu.Lock()
	if l.kicked || r.backlog == nil {
		r.mu.Unlock()
		e.Unlock()
		return "", longest, errStaleLink
	}
	off := r.offset.Load()
	// As prepareFullSync: a replica forwards its master's stream byte
	// for byte, which goes on in the database it is in.
	streamDB := 0
	if r.host != "" {
		streamDB = r.dbSel
	}
	aux := []string{"repl-stream-db", strconv.Itoa(streamDB), "repl-id", r.replid, "repl-offset", strconv.FormatInt(off, 10),
		engine.AuxState, e.StateAux()}
	var buf bytes.Buffer
	if s.abort {
		if _, err := e.WriteRDBAux(&buf, aux...); err != nil {
			r.mu.Unlock()
			e.Unlock()
			return "", longest, err
		}
	} else {
		// Under the lock: the touched keys as they are now. The rest of
		// the file is assembled after the lock is released.
		now := engine.NowMs()
		last := make([]snapChunk, len(s.dbs))
		for di, d := range s.dbs {
			c := &last[di]
			for k := range d.touched {
				var ok, ttl bool
				if c.buf, ok, ttl = e.AppendRDBKey(c.buf, di, k, now); ok {
					c.keys = append(c.keys, k)
					c.ends = append(c.ends, len(c.buf))
					c.ttl = append(c.ttl, ttl)
				}
			}
		}
		l.snap = nil // the touched sets are final
		functions := e.FunctionCodes()
		defer func() {
			if err == nil {
				buf.Reset()
				err = e.WriteRDBParts(&buf, assemble(s, last), functions, aux...)
				r.mu.Lock()
				l.rdb = buf.Bytes()
				r.mu.Unlock()
				r.logf("Replica %s asks for synchronization; full resync with %d bytes of RDB at offset %d (longest lock hold %v)",
					l.addr, buf.Len(), off, longest.Round(time.Microsecond))
			}
		}()
	}
	if r.host == "" {
		r.seldb = -1 // our stream goes on with a SELECT
	}
	l.sent, l.written = off, off
	if s.abort {
		l.rdb = buf.Bytes()
	} else {
		l.rdb = []byte{} // set by the deferred assembly
	}
	if psync {
		reply = "+FULLRESYNC " + r.replid + " " + strconv.FormatInt(off, 10) + "\r\n"
	}
	r.mu.Unlock()
	hold(t0)
	e.Unlock()
	return reply, longest, nil
}

// assemble lists the file's entries per database: the walk's, without
// the keys touched since (their entries in last are current) and without
// duplicates, then last's.
func assemble(s *snapshot, last []snapChunk) []engine.RDBPart {
	parts := make([]engine.RDBPart, len(s.dbs))
	for di, d := range s.dbs {
		p := &parts[di]
		seen := make(map[string]struct{})
		for _, c := range append(d.chunks, &last[di]) {
			start, runStart := 0, 0
			final := c == &last[di]
			for i, k := range c.keys {
				_, touched := d.touched[k]
				_, dup := seen[k]
				if (touched && !final) || dup {
					if start > runStart {
						p.Entries = append(p.Entries, c.buf[runStart:start])
					}
					runStart = c.ends[i]
				} else {
					seen[k] = struct{}{}
					p.Keys++
					if c.ttl[i] {
						p.Expires++
					}
				}
				start = c.ends[i]
			}
			if start > runStart {
				p.Entries = append(p.Entries, c.buf[runStart:start])
			}
		}
	}
	return parts
}
