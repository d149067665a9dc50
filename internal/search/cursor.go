package search

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/ordo-db/ordo/internal/engine"
)

// Cursors (FT.AGGREGATE … WITHCURSOR, FT.CURSOR READ/DEL). A cursor holds
// the rows its aggregation has not sent yet: the pipeline ran when it was
// created, so later reads see the data as it was then (RediSearch reads
// on, from an index that may have changed meanwhile). A cursor idle for
// longer than its MAXIDLE is gone; expiry is checked whenever cursors are
// touched (no timer).

type cursor struct {
	id       int64
	ix       *index
	res      *aggResult
	pos      int
	read     int // documents read by the chunks sent (stream totals)
	count    int
	maxIdle  int64
	lastUsed int64
	first    bool
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

func (s *state) startCursor(c *engine.Ctx, ix *index, r *aggReq, res *aggResult) {
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
	cur := &cursor{ix: ix, res: res, count: r.count, maxIdle: r.maxIdle, lastUsed: c.Now, first: true}
	if cur.maxIdle <= 0 || cur.maxIdle > cf.cursorMaxIdle {
		cur.maxIdle = cf.cursorMaxIdle
	}
	if cur.count <= 0 {
		cur.count = int(cf.cursorReadSize)
	}
	if res.noRows {
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
	cur.first = false
	c.W.Array(2)
	c.W.Array(1 + len(chunk))
	c.W.Int(int64(total))
	writeRows(c, chunk, cur.res.lk)
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
	if len(c.Args) < 4 {
		if len(c.Args) == 3 && c.ArgIs(1, "gc") {
			n := len(s.x.cursors)
			s.expireCursors(c.Now)
			c.W.Int(int64(n - len(s.x.cursors)))
			return
		}
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
	case c.ArgIs(1, "gc"):
		c.W.Int(0)
	default:
		c.Error("Unknown subcommand")
	}
}
