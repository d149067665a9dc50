// Package stream is the structure behind Ordo's Redis Streams: an
// append-only log of entries (an ID and field/value pairs) with consumer
// groups, laid out as Redis 7.0 lays it out.
//
// # Layout
//
// Entries live in nodes, each node one listpack in Redis's own format
// (listpack.c) holding up to stream-node-max-entries entries or
// stream-node-max-bytes bytes: a master entry (live count, deleted count,
// the field names of the node's first entry), then each entry as flags,
// ms and seq deltas against the node's first ID, and either only the
// values (when the fields are the master's) or the fields and values.
// Nodes sit in a slice sorted by their first ID (Redis uses a radix tree
// keyed by the 128-bit big-endian ID; a sorted slice gives the same
// order with one 48-byte header per node). So a stream costs what it
// costs in Redis, about the bytes of its values, with one heap object per
// ~100 entries; and a node is written to an RDB file or DUMP payload as
// it is.
//
// Full nodes then move off the Go heap (slab.go), and once a stream has
// a few of them its tail node is built off the heap too, in place. Reads
// that continue where the last one stopped (XREADGROUP >, XREAD) start
// from the remembered offset instead of walking the node from its start.
//
// Memory, measured with a million XADD of three small fields into one
// stream (redis-benchmark -n 1000000 -P 100 -c 1 XADD s '*' name alice
// age 31 city paris, then VmRSS; ordo-server with GOMAXPROCS=1, as the
// bench runs it): the nodes take 24.3 MB, redis-server's listpacks 26.1
// MB (used_memory_dataset); whole processes 39.0 MB against 37.9 MB, and
// anonymous memory 27.5 MB against 28.4 MB. What is left of the
// difference is the executable's pages: idle, ordo-server has 13.8 MB
// resident, 11 MB of it its 17 MB binary, redis-server 12.2 MB. Since
// net/http/pprof needs a build tag and the bench builds ordo-server
// static (bench/README.md, "Where the memory goes"), the bench's row is
// 35.2 MiB against 37.0. XADD allocates nothing
// (its propagated arguments are built in a per-engine buffer), so a
// load leaves the Go heap at its idle size.
//
// Deleting marks an entry deleted in place (and drops a node whose
// entries are all deleted), as Redis does; trimming drops whole nodes
// from the head, then, unless approximate, marks entries.
//
// Pending entries lists are B-trees (github.com/tidwall/btree, a
// well-kept generic B-tree) of NACKs ordered by ID, shared between the
// group's list and its consumer's as in Redis.
//
// The package is not safe for concurrent use; the engine serializes.
package stream

import (
	"bytes"
	"github.com/ordo-db/ordo/internal/ds/listpack"
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/ordo-db/ordo/internal/ds/mem"
	"github.com/tidwall/btree"
)

// ID is a stream entry ID.
type ID struct{ Ms, Seq uint64 }

// Max is the largest ID.
var Max = ID{math.MaxUint64, math.MaxUint64}

// Cmp compares a and b.
func (a ID) Cmp(b ID) int {
	switch {
	case a.Ms < b.Ms:
		return -1
	case a.Ms > b.Ms:
		return 1
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// Less reports a < b.
func (a ID) Less(b ID) bool { return a.Cmp(b) < 0 }

// IsZero reports a == 0-0.
func (a ID) IsZero() bool { return a.Ms == 0 && a.Seq == 0 }

// Incr returns the next ID (streamIncrID); ok is false at Max.
func (a ID) Incr() (ID, bool) {
	switch {
	case a.Seq < math.MaxUint64:
		a.Seq++
	case a.Ms < math.MaxUint64:
		a.Ms++
		a.Seq = 0
	default:
		return a, false
	}
	return a, true
}

// Decr returns the previous ID (streamDecrID); ok is false at 0-0.
func (a ID) Decr() (ID, bool) {
	switch {
	case a.Seq > 0:
		a.Seq--
	case a.Ms > 0:
		a.Ms--
		a.Seq = math.MaxUint64
	default:
		return a, false
	}
	return a, true
}

// Append appends "ms-seq" to b.
func (a ID) Append(b []byte) []byte {
	b = strconv.AppendUint(b, a.Ms, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, a.Seq, 10)
}

func (a ID) String() string { return string(a.Append(nil)) }

// Entry flags, as Redis's STREAM_ITEM_FLAG_*.
const (
	flagDeleted    = 1
	flagSameFields = 2
)

type node struct {
	master ID
	lp     []byte
	ck     *chunk // the chunk holding lp, nil when on the heap (slab.go)
}

// Stream is one stream value.
type Stream struct {
	nodes        []node
	Length       uint64
	LastID       ID
	FirstID      ID
	MaxDeletedID ID
	EntriesAdded uint64
	groups       []*Group // sorted by name

	slab   *slab
	acct   *mem.Acct
	nbytes int64 // sum of the nodes' size() (Bytes is O(1))

	// seek remembers where the last forward Range stopped (the offset
	// of an entry of the node with master ID seekMaster, and its ID), so
	// that a reader continuing from there (XREADGROUP >, XREAD) does not
	// walk the node's entries from its start again. layout changes when
	// entries move inside a node (a count re-encoded to another size),
	// which makes the hint stale.
	seekMaster, seekID ID
	seekOff            int
	seekLayout, layout uint64

	ap      appender
	scratch []byte
	fv      [][]byte
	offs    []int
}

// New returns an empty stream.
func New() *Stream { return &Stream{} }

// Nodes is the number of nodes (XINFO's radix-tree-keys).
func (s *Stream) Nodes() int { return len(s.nodes) }

// Bytes is the number of bytes the entries occupy (allocated).
func (s *Stream) Bytes() int64 { return s.nbytes + int64(len(s.nodes))*int64(unsafe.Sizeof(node{})) }

// size is the bytes nd's listpack holds: its capacity on the heap, its
// length in a chunk (the open tail's capacity is the chunk's free space).
func (nd *node) size() int64 {
	if nd.ck != nil {
		return int64(len(nd.lp))
	}
	return int64(cap(nd.lp))
}

// capAt is the size of node i (0 past the end).
func (s *Stream) capAt(i int) int64 {
	if i < 0 || i >= len(s.nodes) {
		return 0
	}
	return s.nodes[i].size()
}

// MaxListpackSize is STREAM_LISTPACK_MAX_SIZE.
const MaxListpackSize = 1 << 30

// Append adds an entry with id, which must be greater than LastID; fv
// alternates fields and values. maxBytes and maxEntries are the
// stream-node-max-* settings.
//
// The entry is encoded once into a scratch buffer and copied after the
// tail node's last element, with one header update (streamAppendItem
// appends element by element).
func (s *Stream) Append(id ID, fv [][]byte, maxBytes, maxEntries int64) {
	numFields := len(fv) / 2
	var nd *node
	var cnt int64
	var cntOff int
	if n := len(s.nodes); n > 0 {
		nd = &s.nodes[n-1]
		var off int
		cnt, off = lpInt(nd.lp, lpHeaderSize)
		full := false
		if maxBytes > 0 && maxBytes <= MaxListpackSize {
			totel := 0
			for _, b := range fv {
				totel += len(b)
			}
			full = int64(len(nd.lp)+totel) >= maxBytes
		}
		if !full && maxEntries > 0 {
			del, _ := lpInt(nd.lp, off)
			full = cnt+del >= maxEntries
		}
		if full {
			before := nd.size()
			s.seal(nd)
			s.nbytes += nd.size() - before
			nd = nil
		} else if nd.ck != nil && !s.isOpen(nd) {
			before := nd.size()
			s.toHeap(nd) // a full node that is the tail again
			s.nbytes += nd.size() - before
		}
	}
	// The entry, and before it the master entry of a new node.
	e := s.ap.scratch[:0]
	flags := int64(0)
	if nd == nil {
		e = appendIntElem(e, 1) // count
		e = appendIntElem(e, 0) // deleted
		e = appendIntElem(e, int64(numFields))
		for i := 0; i < numFields; i++ {
			e = listpack.AppendEntry(e, fv[2*i])
		}
		e = appendIntElem(e, 0) // master terminator
		flags = flagSameFields
	} else {
		_, off := lpInt(nd.lp, lpHeaderSize)
		_, off = lpInt(nd.lp, off)
		mf, off := lpInt(nd.lp, off)
		if int(mf) == numFields {
			i := 0
			for ; i < numFields; i++ {
				var ok bool
				ok, off = s.elemEquals(nd.lp, off, fv[2*i])
				if !ok {
					break
				}
			}
			if i == numFields {
				flags = flagSameFields
			}
		}
		cntOff = lpHeaderSize
	}
	master := id
	if nd != nil {
		master = nd.master
	}
	nelem := 0
	if nd == nil {
		nelem = numFields + 4
	}
	e = appendIntElem(e, flags)
	e = appendIntElem(e, int64(id.Ms-master.Ms))
	e = appendIntElem(e, int64(id.Seq-master.Seq))
	lpCount := int64(numFields) + 3
	if flags&flagSameFields == 0 {
		e = appendIntElem(e, int64(numFields))
		lpCount += int64(numFields) + 1
		for i := 0; i < numFields; i++ {
			e = listpack.AppendEntry(e, fv[2*i])
			e = listpack.AppendEntry(e, fv[2*i+1])
		}
	} else {
		for i := 0; i < numFields; i++ {
			e = listpack.AppendEntry(e, fv[2*i+1])
		}
	}
	e = appendIntElem(e, lpCount)
	nelem += int(lpCount) + 1 // the entry and its lp-count
	s.ap.scratch = e

	var before int64
	if nd == nil {
		lp, ck := s.newNodeLP(len(e) + lpHeaderSize + 1)
		if len(s.nodes) == cap(s.nodes) {
			// Doubling: append's 1.25x growth of a big slice leaves about
			// four times the final array in garbage on the way, and the
			// collector's goal follows the heap's peak.
			s.nodes = slices.Grow(s.nodes, max(len(s.nodes), 4))
		}
		s.nodes = append(s.nodes, node{master: id, lp: lp, ck: ck})
		nd = &s.nodes[len(s.nodes)-1]
	} else {
		before = nd.size()
		s.replaceInt(nd, cntOff, cnt+1) // in place unless the count's encoding grows
		s.room(nd, len(e))
	}
	lp := nd.lp
	lp = append(lp[:len(lp)-1], e...)
	lp = append(lp, lpEOF)
	lpSetHeader(lp, nelem)
	nd.lp = lp
	s.nbytes += nd.size() - before
	s.Length++
	s.EntriesAdded++
	s.LastID = id
	if s.Length == 1 {
		s.FirstID = id
	}
}

// appendIntElem appends v as one listpack element (encoding and backlen).
func appendIntElem(b []byte, v int64) []byte {
	start := len(b)
	b = listpack.AppendInt(b, v)
	return listpack.AppendBacklen(b, len(b)-start)
}

func (s *Stream) elemEquals(lp []byte, off int, want []byte) (bool, int) {
	e, n, isInt, next := lpElem(lp, off)
	if isInt {
		s.scratch = strconv.AppendInt(s.scratch[:0], n, 10)
		e = s.scratch
	}
	return bytes.Equal(e, want), next
}

// nextCap is the capacity of a new node's listpack: the size of the
// last full one (entries tend to look alike), so that a node rarely
// reallocates while it fills and needs no trimming when full.
func (s *Stream) nextCap() int {
	if n := len(s.nodes); n > 0 {
		return len(s.nodes[n-1].lp) + len(s.nodes[n-1].lp)/8
	}
	return 64
}

// nodeFor returns the index of the last node whose master ID is <= id
// (0 if none).
func (s *Stream) nodeFor(id ID) int {
	i, _ := slices.BinarySearchFunc(s.nodes, id, func(n node, id ID) int { return n.master.Cmp(id) })
	if i < len(s.nodes) && s.nodes[i].master == id {
		return i
	}
	if i > 0 {
		i--
	}
	return i
}

// entryAt decodes the entry at off of node nd: its flags, ID, the offset
// of the flags element, and the offset after it. With fv, it fills
// s.fv with the field/value views.
func (s *Stream) entryAt(nd *node, masterFields, masterOff int, off int, wantFV bool) (flags int64, id ID, next int) {
	lp := nd.lp
	flags, off = lpInt(lp, off)
	msd, off := lpInt(lp, off)
	seqd, off := lpInt(lp, off)
	id = ID{nd.master.Ms + uint64(msd), nd.master.Seq + uint64(seqd)}
	var nf int
	same := flags&flagSameFields != 0
	if same {
		nf = masterFields
	} else {
		n, o := lpInt(lp, off)
		nf, off = int(n), o
	}
	if !wantFV {
		skip := nf
		if !same {
			skip *= 2
		}
		for i := 0; i <= skip; i++ { // the values (and fields), then lp-count
			off = lpSkip(lp, off)
		}
		return flags, id, off
	}
	// Integers are formatted into s.scratch, grown first so that the
	// views taken into it stay valid (at most 20 bytes per integer).
	if need := 2 * nf * 20; cap(s.scratch) < need {
		s.scratch = make([]byte, 0, need)
	}
	sc := s.scratch[:0]
	fv := s.fv[:0]
	elem := func(off int) ([]byte, int) {
		e, n, isInt, next := lpElem(lp, off)
		if isInt {
			st := len(sc)
			sc = strconv.AppendInt(sc, n, 10)
			e = sc[st:len(sc):len(sc)]
		}
		return e, next
	}
	mo := masterOff
	var e []byte
	for i := 0; i < nf; i++ {
		if same {
			e, mo = elem(mo)
		} else {
			e, off = elem(off)
		}
		fv = append(fv, e)
		e, off = elem(off)
		fv = append(fv, e)
	}
	off = lpSkip(lp, off) // lp-count
	s.scratch, s.fv = sc, fv
	return flags, id, off
}

// lpSkip returns the offset of the element after the one at off, from
// its encoding byte alone.
func lpSkip(lp []byte, off int) int {
	size, ok := listpack.EncodingSize(lp, off)
	if !ok {
		panic("stream: corrupt listpack")
	}
	return off + size + listpack.BacklenSize(size)
}

// nodeHeader returns the live and deleted counts, the number of master
// fields, the offset of the first master field and of the first entry.
func nodeHeader(lp []byte) (count, deleted int64, masterFields, masterOff, first int) {
	count, off := lpInt(lp, lpHeaderSize)
	deleted, off = lpInt(lp, off)
	mf, off := lpInt(lp, off)
	masterOff = off
	for i := int64(0); i < mf; i++ {
		_, _, _, off = lpElem(lp, off)
	}
	_, _, _, off = lpElem(lp, off) // master terminator
	return count, deleted, int(mf), masterOff, off
}

// Range calls fn for each live entry with start <= ID <= end, in order
// (or in reverse order if rev), until fn returns false. fv alternates
// fields and values; it and its slices are valid only during the call.
// fn must not change the stream.
func (s *Stream) Range(start, end ID, rev bool, fn func(id ID, fv [][]byte) bool) {
	if s.Length == 0 || end.Less(start) {
		return
	}
	if !rev {
		first := s.nodeFor(start)
		for i := first; i < len(s.nodes); i++ {
			nd := &s.nodes[i]
			if end.Less(nd.master) {
				return
			}
			_, _, mf, mo, off := nodeHeader(nd.lp)
			if i == first && s.seekOff > 0 && s.seekLayout == s.layout && s.seekMaster == nd.master && !start.Less(s.seekID) {
				off = s.seekOff // entries before it are before start
			}
			for off < len(nd.lp)-1 {
				flags, id, next := s.entryAt(nd, mf, mo, off, false)
				if flags&flagDeleted == 0 && !id.Less(start) {
					if end.Less(id) || !s.visit(nd, mf, mo, off, id, fn) {
						s.seekMaster, s.seekID, s.seekOff, s.seekLayout = nd.master, id, off, s.layout
						return
					}
				}
				off = next
			}
		}
		return
	}
	for i := s.nodeFor(end); i >= 0; i-- {
		nd := &s.nodes[i]
		_, _, mf, mo, off := nodeHeader(nd.lp)
		offs := s.offs[:0]
		for off < len(nd.lp)-1 {
			offs = append(offs, off)
			_, _, off = s.entryAt(nd, mf, mo, off, false)
		}
		s.offs = offs
		for j := len(offs) - 1; j >= 0; j-- {
			flags, id, _ := s.entryAt(nd, mf, mo, offs[j], false)
			if flags&flagDeleted != 0 || end.Less(id) {
				continue
			}
			if id.Less(start) {
				return
			}
			s.entryAt(nd, mf, mo, offs[j], true)
			if !fn(id, s.fv) {
				return
			}
		}
		if nd.master.Less(start) {
			return
		}
	}
}

// visit decodes the entry at off and passes it to fn.
func (s *Stream) visit(nd *node, mf, mo, off int, id ID, fn func(id ID, fv [][]byte) bool) bool {
	s.entryAt(nd, mf, mo, off, true)
	return fn(id, s.fv)
}

// Exists reports whether a live entry has id.
func (s *Stream) Exists(id ID) bool {
	found := false
	s.Range(id, id, false, func(ID, [][]byte) bool { found = true; return false })
	return found
}

// Get calls fn with the entry id, if it exists, and reports whether it did.
func (s *Stream) Get(id ID, fn func(fv [][]byte)) bool {
	found := false
	s.Range(id, id, false, func(_ ID, fv [][]byte) bool { found = true; fn(fv); return false })
	return found
}

// Delete marks entry id deleted; it reports whether it was live. It does
// not touch FirstID or MaxDeletedID (the caller, XDEL, does).
func (s *Stream) Delete(id ID) bool {
	if s.Length == 0 {
		return false
	}
	i := s.nodeFor(id)
	nd := &s.nodes[i]
	before := nd.size()
	cnt, del, mf, mo, off := nodeHeader(nd.lp)
	for off < len(nd.lp)-1 {
		flags, eid, next := s.entryAt(nd, mf, mo, off, false)
		if eid == id {
			if flags&flagDeleted != 0 {
				return false
			}
			s.Length--
			if cnt == 1 {
				s.release(nd)
				s.nodes = slices.Delete(s.nodes, i, i+1)
				s.nbytes -= before
				return true
			}
			nd.lp[off] = byte(flags | flagDeleted) // a 7-bit int: one byte
			s.replaceInt(nd, lpHeaderSize, cnt-1)
			_, o := lpInt(nd.lp, lpHeaderSize)
			s.replaceInt(nd, o, del+1)
			s.nbytes += nd.size() - before
			return true
		}
		if id.Less(eid) {
			return false
		}
		off = next
	}
	return false
}

// LastValid returns the ID of the last live entry (streamLastValidID).
func (s *Stream) LastValid() (ID, bool) {
	if s.Length == 0 {
		return ID{}, false
	}
	// Usually the last entry of the last node: found from the end, as
	// Redis's reverse iterator does, by its lp-count.
	nd := &s.nodes[len(s.nodes)-1]
	countOff := lpPrev(nd.lp, len(nd.lp)-1)
	n, _ := lpInt(nd.lp, countOff)
	off := countOff
	for i := int64(0); i < n; i++ {
		off = lpPrev(nd.lp, off)
	}
	if flags, _ := lpInt(nd.lp, off); flags&flagDeleted == 0 {
		_, _, mf, mo, _ := nodeHeader(nd.lp)
		_, id, _ := s.entryAt(nd, mf, mo, off, false)
		return id, true
	}
	var out ID
	found := false
	s.Range(ID{}, Max, true, func(id ID, _ [][]byte) bool { out, found = id, true; return false })
	return out, found
}

// FirstValid returns the ID of the first live entry.
func (s *Stream) FirstValid() (ID, bool) {
	var out ID
	found := false
	s.Range(ID{}, Max, false, func(id ID, _ [][]byte) bool { out, found = id, true; return false })
	return out, found
}

// Trim strategies.
const (
	TrimNone = iota
	TrimMaxLen
	TrimMinID
)

// TrimArgs are XADD's and XTRIM's trimming options.
type TrimArgs struct {
	Strategy int
	Approx   bool
	Limit    int64
	MaxLen   int64
	MinID    ID
}

// Trim is Redis's streamTrim: it returns the number of entries removed.
func (s *Stream) Trim(a TrimArgs) int64 {
	if a.Strategy == TrimNone {
		return 0
	}
	var deleted int64
	for len(s.nodes) > 0 {
		if a.Strategy == TrimMaxLen && int64(s.Length) <= a.MaxLen {
			break
		}
		nd := &s.nodes[0]
		entries, marked, mf, mo, first := nodeHeader(nd.lp)
		if a.Limit > 0 && deleted+entries > a.Limit {
			break
		}
		var remove bool
		if a.Strategy == TrimMaxLen {
			remove = int64(s.Length)-entries >= a.MaxLen
		} else {
			// The node's last ID (live or not): the last entry's.
			last := nd.master
			for off := first; off < len(nd.lp)-1; {
				var id ID
				_, id, off = s.entryAt(nd, mf, mo, off, false)
				last = id
			}
			remove = last.Less(a.MinID)
		}
		if remove {
			s.nbytes -= nd.size()
			s.release(nd)
			s.nodes = slices.Delete(s.nodes, 0, 1)
			s.Length -= uint64(entries)
			deleted += entries
			continue
		}
		if a.Approx {
			break
		}
		var fromNode int64
		for off := first; off < len(nd.lp)-1; {
			flags, id, next := s.entryAt(nd, mf, mo, off, false)
			var stop bool
			if a.Strategy == TrimMaxLen {
				stop = int64(s.Length) <= a.MaxLen
			} else {
				stop = !id.Less(a.MinID)
			}
			if stop {
				break
			}
			if flags&flagDeleted == 0 {
				nd.lp[off] = byte(flags | flagDeleted)
				fromNode++
				s.Length--
			}
			off = next
		}
		deleted += fromNode
		before := nd.size()
		s.replaceInt(nd, lpHeaderSize, entries-fromNode)
		_, o := lpInt(nd.lp, lpHeaderSize)
		s.replaceInt(nd, o, marked+fromNode)
		s.nbytes += nd.size() - before
		break
	}
	if deleted == 0 {
		return 0 // FirstID stands: XADD with a trim runs this on every call
	}
	if s.Length == 0 {
		s.FirstID = ID{}
	} else if id, ok := s.FirstValid(); ok {
		s.FirstID = id
	}
	return deleted
}

// EachNode calls fn with each node's master ID and listpack (RDB).
func (s *Stream) EachNode(fn func(master ID, lp []byte)) {
	for _, nd := range s.nodes {
		fn(nd.master, nd.lp)
	}
}

// AddNode appends a node read from an RDB payload; it validates the
// listpack as a stream node and returns its live entry count. Nodes must
// come in increasing master order.
func (s *Stream) AddNode(master ID, lp []byte) (int64, bool) {
	if _, ok := lpValidate(lp); !ok {
		return 0, false
	}
	if len(s.nodes) > 0 && !s.nodes[len(s.nodes)-1].master.Less(master) {
		return 0, false
	}
	cnt, _, ok := ValidateNode(lp)
	if !ok || cnt == 0 {
		return 0, false
	}
	s.nodes = append(s.nodes, node{master: master, lp: slices.Clone(lp)})
	n := len(s.nodes)
	s.nbytes += s.capAt(n - 1)
	if n > 1 {
		before := s.capAt(n - 2)
		s.seal(&s.nodes[n-2]) // every node but the last is full
		s.nbytes += s.capAt(n-2) - before
	}
	return cnt, true
}

// ValidateNode checks that lp is a listpack holding a stream node
// (Redis's streamValidateListpackIntegrity, deep) and returns its live
// and deleted entry counts.
func ValidateNode(lp []byte) (live, dead int64, ok bool) {
	if _, ok := lpValidate(lp); !ok {
		return 0, 0, false
	}
	if validNode(lp, &live, &dead) {
		return live, dead, true
	}
	return 0, 0, false
}

func validNode(lp []byte, liveOut, deadOut *int64) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	end := len(lp) - 1
	off := lpHeaderSize
	next := func() (int64, bool) {
		if off >= end {
			panic("short")
		}
		s, n, isInt, nx := lpElem(lp, off)
		off = nx
		if !isInt {
			v, ok := listpack.ParseInt(s)
			return v, ok
		}
		return n, true
	}
	skip := func() {
		if off >= end {
			panic("short")
		}
		_, _, _, off = lpElem(lp, off)
	}
	cnt, ok1 := next()
	del, ok2 := next()
	mf, ok3 := next()
	if !ok1 || !ok2 || !ok3 || mf < 0 || cnt < 0 || del < 0 {
		return false
	}
	for i := int64(0); i < mf; i++ {
		skip()
	}
	if z, ok := next(); !ok || z != 0 {
		return false
	}
	var live, dead int64
	for off < end {
		flags, ok := next()
		if !ok {
			return false
		}
		if _, ok := next(); !ok { // ms delta
			return false
		}
		if _, ok := next(); !ok { // seq delta
			return false
		}
		nf, extra := mf, int64(3)
		if flags&flagSameFields == 0 {
			v, ok := next()
			if !ok || v < 0 || v > int64(end) {
				return false
			}
			for i := int64(0); i < v; i++ {
				skip() // field names
			}
			nf, extra = v, 3+v+1
		}
		for i := int64(0); i < nf; i++ {
			skip() // values
		}
		// lp-count, which reverse iteration relies on.
		if n, ok := next(); !ok || n != nf+extra {
			return false
		}
		if flags&flagDeleted != 0 {
			dead++
		} else {
			live++
		}
	}
	*liveOut, *deadOut = live, dead
	return live == cnt && dead == del
}

// ---- consumer groups ----

// NACK is a pending entry: delivered to a consumer, not yet acknowledged.
type NACK struct {
	ID            ID
	DeliveryTime  int64
	DeliveryCount int64
	Consumer      *Consumer
}

// Consumer is a consumer of a group.
type Consumer struct {
	Name     string
	SeenTime int64
	PEL      *btree.BTreeG[*NACK]
}

// Group is a consumer group.
type Group struct {
	Name        string
	LastID      ID
	EntriesRead int64 // -1: unknown
	PEL         *btree.BTreeG[*NACK]
	consumers   *btree.BTreeG[*Consumer]

	// Search keys, reused so that a lookup allocates nothing (the
	// B-tree takes a *NACK or *Consumer to compare with).
	nackKey NACK
	consKey Consumer
}

func nackLess(a, b *NACK) bool { return a.ID.Less(b.ID) }

func newPEL() *btree.BTreeG[*NACK] {
	return btree.NewBTreeGOptions(nackLess, btree.Options{NoLocks: true})
}

// Groups returns the groups in name order (read-only).
func (s *Stream) Groups() []*Group { return s.groups }

// Group returns the group named name, or nil.
func (s *Stream) Group(name []byte) *Group {
	i, ok := slices.BinarySearchFunc(s.groups, name, func(g *Group, n []byte) int {
		return bytes.Compare([]byte(g.Name), n)
	})
	if !ok {
		return nil
	}
	return s.groups[i]
}

// CreateGroup adds a group; nil if one has that name.
func (s *Stream) CreateGroup(name []byte, last ID, entriesRead int64) *Group {
	i, ok := slices.BinarySearchFunc(s.groups, name, func(g *Group, n []byte) int {
		return bytes.Compare([]byte(g.Name), n)
	})
	if ok {
		return nil
	}
	g := &Group{Name: string(name), LastID: last, EntriesRead: entriesRead, PEL: newPEL(),
		consumers: btree.NewBTreeGOptions(func(a, b *Consumer) bool { return a.Name < b.Name }, btree.Options{NoLocks: true})}
	s.groups = slices.Insert(s.groups, i, g)
	return g
}

// DestroyGroup removes a group and reports whether it existed.
func (s *Stream) DestroyGroup(name []byte) bool {
	i, ok := slices.BinarySearchFunc(s.groups, name, func(g *Group, n []byte) int {
		return bytes.Compare([]byte(g.Name), n)
	})
	if ok {
		s.groups = slices.Delete(s.groups, i, i+1)
	}
	return ok
}

// Consumer returns the consumer named name, or nil.
func (g *Group) Consumer(name []byte) *Consumer {
	g.consKey.Name = unsafe.String(unsafe.SliceData(name), len(name)) // only compared, never kept
	c, _ := g.consumers.Get(&g.consKey)
	g.consKey.Name = ""
	return c
}

// CreateConsumer adds a consumer; nil if it exists.
func (g *Group) CreateConsumer(name []byte, now int64) *Consumer {
	if g.Consumer(name) != nil {
		return nil
	}
	c := &Consumer{Name: string(name), SeenTime: now, PEL: newPEL()}
	g.consumers.Set(c)
	return c
}

// DeleteConsumer removes a consumer and its pending entries.
func (g *Group) DeleteConsumer(c *Consumer) {
	c.PEL.Scan(func(n *NACK) bool { g.PEL.Delete(n); return true })
	g.consumers.Delete(c)
}

// Consumers calls fn for each consumer in name order.
func (g *Group) Consumers(fn func(c *Consumer) bool) { g.consumers.Scan(fn) }

// NumConsumers is the number of consumers.
func (g *Group) NumConsumers() int { return g.consumers.Len() }

// Pending returns the NACK of id, or nil.
func (g *Group) Pending(id ID) *NACK {
	g.nackKey.ID = id
	n, _ := g.PEL.Get(&g.nackKey)
	return n
}

// Ack removes id from the PELs; it reports whether it was pending.
func (g *Group) Ack(id ID) bool {
	g.nackKey.ID = id
	n, ok := g.PEL.Delete(&g.nackKey)
	if ok && n.Consumer != nil {
		n.Consumer.PEL.Delete(n)
	}
	return ok
}

// Copy returns a deep copy of the stream.
func (s *Stream) Copy() *Stream {
	out := &Stream{Length: s.Length, LastID: s.LastID, FirstID: s.FirstID, MaxDeletedID: s.MaxDeletedID,
		EntriesAdded: s.EntriesAdded}
	out.acct = s.acct
	out.nodes = make([]node, len(s.nodes))
	for i, nd := range s.nodes {
		out.nodes[i] = node{master: nd.master, lp: slices.Clone(nd.lp)}
		if i < len(s.nodes)-1 {
			out.seal(&out.nodes[i]) // full nodes go off the heap, as in s
		}
		out.nbytes += out.nodes[i].size()
	}
	for _, g := range s.groups {
		ng := out.CreateGroup([]byte(g.Name), g.LastID, g.EntriesRead)
		g.Consumers(func(c *Consumer) bool {
			nc := ng.CreateConsumer([]byte(c.Name), c.SeenTime)
			c.PEL.Scan(func(n *NACK) bool {
				nn := &NACK{ID: n.ID, DeliveryTime: n.DeliveryTime, DeliveryCount: n.DeliveryCount, Consumer: nc}
				nc.PEL.Set(nn)
				ng.PEL.Set(nn)
				return true
			})
			return true
		})
	}
	return out
}

// Get1 calls fn with the first (or, if rev, the last) live entry and
// reports whether there was one.
func (s *Stream) Get1(rev bool, fn func(id ID, fv [][]byte)) bool {
	found := false
	s.Range(ID{}, Max, rev, func(id ID, fv [][]byte) bool { found = true; fn(id, fv); return false })
	return found
}
