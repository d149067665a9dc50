package search

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

// Cursors (FT.AGGREGATE … WITHCURSOR, FT.CURSOR READ/DEL/GC).
//
// A pipeline that takes rows one at a time (LOAD, APPLY, FILTER, LIMIT:
// no GROUPBY, no SORTBY) is computed read by read, as RediSearch's is:
// the cursor holds the keys of the documents the query matched at
// FT.AGGREGATE (their bytes in one arena), and each READ loads, applies
// and filters documents until it has COUNT rows, so a document is read
// with its values at that READ, one deleted or expired meanwhile is
// skipped (RediSearch reads on through its index instead: a document
// changed so that it no longer matches is still returned here, and one
// added meanwhile is not). A pipeline with GROUPBY or SORTBY must see
// every row before its first is known: it runs at FT.AGGREGATE and the
// cursor holds only the rows that stage leaves (the groups, or the
// sorted rows up to its MAX or LIMIT), sent COUNT at a time.
//
// A cursor idle for longer than its MAXIDLE is gone; expiry is checked
// whenever cursors are touched (no timer), and by FT.CURSOR GC.

type cursor struct {
	id       int64
	ix       *index
	res      *aggResult // the rows computed at FT.AGGREGATE; nil when streaming
	st       *aggStream // the streamed pipeline
	pos      int
	read     int // documents read by the chunks sent (stream totals)
	count    int
	maxIdle  int64
	lastUsed int64
	first    bool
}

// aggStream is a streaming pipeline's state between reads.
type aggStream struct {
	p    *aggPipe
	keys []byte   // the matched documents' keys, end to end
	ends []uint32 // key i is keys[ends[i-1]:ends[i]]
	next int      // the next key to read
	read int      // documents read so far (rows' src)
	lims []limState
	done bool // a LIMIT is full, or the keys ran out
}

type limState struct{ skipped, emitted int }

// stream evaluates the query and keeps its documents' keys for reads.
func (p *aggPipe) stream() *aggStream {
	ix := p.ix
	ids := ix.eval(p.q)
	st := &aggStream{p: p, ends: make([]uint32, 0, len(ids)), lims: make([]limState, len(p.plans))}
	n := 0
	for _, id := range ids {
		n += len(ix.key(id))
	}
	st.keys = make([]byte, 0, n)
	for _, id := range ids {
		st.keys = append(st.keys, ix.key(id)...)
		st.ends = append(st.ends, uint32(len(st.keys)))
	}
	return st
}

// chunk computes up to n more rows; read is the number of documents it
// read (up to its last row when it has n).
func (st *aggStream) chunk(c *engine.Ctx, n int) (rows []*aggRow, read int) {
	ix := st.p.ix
	for !st.done && len(rows) < n && st.next < len(st.ends) {
		lo := uint32(0)
		if st.next > 0 {
			lo = st.ends[st.next-1]
		}
		key := string(st.keys[lo:st.ends[st.next]])
		st.next++
		id, ok := ix.idOf(key)
		if !ok {
			continue // deleted since
		}
		row := st.p.loadRow(c, id, key, st.read, n)
		if row == nil {
			continue
		}
		st.read++
		read++
		if st.pass(row) {
			rows = append(rows, row)
		}
	}
	if st.next >= len(st.ends) {
		st.done = true
	}
	return rows, read
}

// pass runs the steps on one row: false if a FILTER or LIMIT drops it.
func (st *aggStream) pass(row *aggRow) bool {
	for i, stp := range st.p.plans {
		switch stp.kind {
		case stApply:
			row.set(stp.alias, stp.e.eval(row))
		case stFilter:
			if !stp.e.eval(row).truthy() {
				return false
			}
		case stArrange: // a LIMIT (a stream has no SORTBY)
			if !stp.limited || stp.off == 0 && stp.num == 0 {
				continue
			}
			l := &st.lims[i]
			if l.skipped < stp.off {
				l.skipped++
				return false
			}
			if l.emitted >= stp.num {
				st.done = true
				return false
			}
			if l.emitted++; l.emitted == stp.num {
				st.done = true // no later row can pass
			}
		}
	}
	return true
}

// maxCursors bounds the open cursors of one index, as RediSearch's
// default capacity ("Too many cursors allocated for index").
const maxCursors = 128

func (s *state) expireCursors(now int64) {
	for id, cur := range s.x.cursors {
		if now-cur.lastUsed > cur.maxIdle {
			delete(s.x.cursors, id)
		}
	}
}

// startCursor opens a cursor over res (rows computed) or st (streamed)
// and sends its first chunk.
func (s *state) startCursor(c *engine.Ctx, ix *index, r *aggReq, res *aggResult, st *aggStream) {
	s.expireCursors(c.Now)
	open := 0
	for _, cur := range s.x.cursors {
		if cur.ix == ix {
			open++
		}
	}
	if open >= maxCursors {
		c.Error("Too many cursors allocated for index")
		return
	}
	cf := s.cfg()
	cur := &cursor{ix: ix, res: res, st: st, count: r.count, maxIdle: r.maxIdle, lastUsed: c.Now, first: true}
	if cur.maxIdle <= 0 || cur.maxIdle > cf.cursorMaxIdle {
		cur.maxIdle = cf.cursorMaxIdle
	}
	if cur.count <= 0 {
		cur.count = int(cf.cursorReadSize)
	}
	if res != nil && res.noRows {
		res.rows = nil
	}
	if s.x.cursors == nil {
		s.x.cursors = map[int64]*cursor{}
	}
	for {
		cur.id = rand.Int64N(1<<53) + 1
		if s.x.cursors[cur.id] == nil {
			break
		}
	}
	s.x.cursors[cur.id] = cur
	s.readCursor(c, cur, 0)
}

// readCursor sends the next chunk: [[total, row…], cursor id], the id 0
// once the rows ran out (and the cursor is gone).
func (s *state) readCursor(c *engine.Ctx, cur *cursor, n int) {
	if n <= 0 {
		n = cur.count
	}
	cur.count = n
	if cur.st != nil {
		chunk, read := cur.st.chunk(c, n)
		s.sendChunk(c, cur, chunk, read, cur.st.p.lk, len(chunk) < n)
		return
	}
	rest := cur.res.rows[cur.pos:]
	chunk := rest[:min(n, len(rest))]
	cur.pos += len(chunk)
	// RediSearch ends a cursor when a read finds fewer rows than it asked
	// for; a read that takes exactly the last rows leaves it open.
	done := len(chunk) < n
	total := 0
	switch {
	case cur.res.stream:
		// The documents this read took from the index: up to its last
		// row, or all the rest when it reached the end.
		read := cur.res.read
		if !done && len(chunk) > 0 {
			read = int(chunk[len(chunk)-1].src) + 1
		}
		total = max(read-cur.read, 0)
		cur.read = read
	case cur.first:
		total = cur.res.total
	}
	s.sendChunk(c, cur, chunk, total, cur.res.lk, done)
}

// sendChunk writes [[total, row…], cursor id], the id 0 when done (and
// the cursor is gone).
func (s *state) sendChunk(c *engine.Ctx, cur *cursor, chunk []*aggRow, total int, lk *lookup, done bool) {
	cur.first = false
	c.W.Array(2)
	c.W.Array(1 + len(chunk))
	c.W.Int(int64(total))
	writeRows(c, chunk, lk)
	if done {
		c.W.Int(0)
		delete(s.x.cursors, cur.id)
		return
	}
	cur.lastUsed = c.Now
	c.W.Int(cur.id)
}

// FT.CURSOR READ idx cid [COUNT n] | DEL idx cid | GC idx
func ftCursor(c *engine.Ctx, s *state) {
	if len(c.Args) >= 3 && c.ArgIs(1, "gc") {
		// RediSearch's Cursors_CollectIdle: -1 when cursors are idle but
		// none has expired, else how many it collected.
		n := len(s.x.cursors)
		s.expireCursors(c.Now)
		gone := n - len(s.x.cursors)
		if gone == 0 && n > 0 {
			gone = -1
		}
		c.W.Int(int64(gone))
		return
	}
	if len(c.Args) < 4 {
		c.Error("ERR wrong number of arguments for '" + strings.ToLower(string(c.Args[0])) + "' command")
		return
	}
	cid, err := strconv.ParseInt(string(c.Args[3]), 10, 64)
	if err != nil {
		c.Error("Bad cursor ID")
		return
	}
	s.expireCursors(c.Now)
	switch {
	case c.ArgIs(1, "read"):
		count := int64(0)
		if len(c.Args) > 5 {
			n, err := strconv.ParseInt(string(c.Args[5]), 10, 64)
			if err != nil {
				c.Error("Bad value for COUNT")
				return
			}
			count = n
		}
		cur := s.x.cursors[cid]
		if cur == nil {
			c.Error("Cursor not found")
			return
		}
		s.readCursor(c, cur, int(min(count, 1<<30)))
	case c.ArgIs(1, "del"):
		if s.x.cursors[cid] == nil {
			c.Error("Cursor does not exist")
			return
		}
		delete(s.x.cursors, cid)
		c.W.OK()
	default:
		c.Error("Unknown subcommand")
	}
}
