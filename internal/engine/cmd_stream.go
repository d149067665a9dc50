package engine

// Streams (Redis's t_stream.c): XADD, XRANGE, XREVRANGE, XLEN, XDEL,
// XTRIM, XREAD, XREADGROUP, XGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM,
// XINFO, XSETID. Replies, errors, propagation (XREADGROUP and XCLAIM as
// XCLAIM ... FORCE JUSTID LASTID plus XGROUP SETID / CREATECONSUMER;
// XADD with its generated ID and an approximate trim made exact) and
// keyspace events are Redis 7.0's. Blocking reads use the engine's
// waiters (blocking.go), served in the order clients blocked.

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/ordo-db/ordo/internal/ds/stream"
	"github.com/ordo-db/ordo/internal/rdb"
	"github.com/ordo-db/ordo/internal/resp"
)

// Stream error replies, as Redis 7.0 writes them.
const (
	ErrStreamID          = "ERR Invalid stream ID specified as stream command argument"
	ErrStreamIDZero      = "ERR The ID specified in XADD must be greater than 0-0"
	ErrStreamIDSmall     = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	ErrStreamExhausted   = "ERR The stream has exhausted the last possible ID, unable to add more items"
	ErrStreamTooLarge    = "ERR Elements are too large to be stored"
	ErrStreamStartID     = "ERR invalid start ID for the interval"
	ErrStreamEndID       = "ERR invalid end ID for the interval"
	ErrStreamMaxMin      = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
	ErrStreamMaxLenNeg   = "ERR The MAXLEN argument must be >= 0."
	ErrStreamLimitNeg    = "ERR The LIMIT argument must be >= 0."
	ErrStreamLimitNoTrim = "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
	ErrStreamXtrimNoStr  = "ERR syntax error, XTRIM must be called with a trimming strategy"
	ErrStreamLimitNoApx  = "ERR syntax error, LIMIT cannot be used without the special ~ option"
	ErrStreamBusyGroup   = "BUSYGROUP Consumer Group name already exists"
	ErrStreamNeedKey     = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
	ErrStreamEntriesRead = "ERR value for ENTRIESREAD must be positive or -1"
	ErrStreamUnblocked   = "UNBLOCKED the stream key no longer exists"
	ErrStreamGroupGone   = "NOGROUP the consumer group this client was blocked on no longer exists"
)

// Stream is the value of a stream key.
type Stream struct {
	sized
	*stream.Stream
	cfg *Config // the engine's, for Rewrite (nil: Redis's defaults)
}

// NewStream returns an empty stream value.
func NewStream() *Stream { return &Stream{Stream: stream.New()} }

// newStream is NewStream counting its off-heap nodes in the engine's
// memory account.
func (e *Engine) newStream() *Stream {
	s := NewStream()
	s.SetAcct(e.acct)
	s.cfg = e.Config
	return s
}

// TypeName implements Typed.
func (s *Stream) TypeName() string { return "stream" }

// Encoding implements Typed.
func (s *Stream) Encoding() string { return "stream" }

// Len implements Typed.
func (s *Stream) Len() int { return int(s.Length) }

// Copy implements Typed.
func (s *Stream) Copy() Typed {
	cp := &Stream{Stream: s.Stream.Copy(), cfg: s.cfg}
	cp.SetAcct(s.Acct())
	return cp
}

// MemoryUsage implements Typed.
func (s *Stream) MemoryUsage() int64 {
	n := int64(unsafe.Sizeof(Stream{})+unsafe.Sizeof(stream.Stream{})) + s.Bytes()
	// O(groups), as it runs after every change: a pending entry is a
	// NACK in two B-trees, a consumer about 80 bytes with its name.
	for _, g := range s.Groups() {
		n += 96 + int64(len(g.Name)) + int64(g.PEL.Len())*64 + int64(g.NumConsumers())*80
	}
	return n
}

func idArg(id stream.ID) []byte { return id.Append(nil) }

// rewriteRestoreMax is the largest stream (its nodes' bytes) an AOF
// rewrite writes as one RESTORE.
const rewriteRestoreMax = 64 << 20

// Rewrite implements Typed. With aof-use-rdb-preamble yes (the default)
// Redis's rewritten AOF starts with an RDB image, which keeps each stream
// node as it is (entries marked deleted included); Ordo's rewrite writes
// commands, so the stream goes as one RESTORE of its DUMP payload, and a
// restarted server has the nodes the live one had (XINFO STREAM FULL's
// radix-tree-keys and -nodes agree with Redis's). With the preamble off,
// it is Redis's rewriteStreamObject: the live entries re-added, re-packed.
// So is a stream over rewriteRestoreMax bytes: one command, built whole
// in memory, must stay well under what an AOF record holds.
func (s *Stream) Rewrite(key string, emit func(args [][]byte)) {
	k := []byte(key)
	if (s.cfg == nil || s.cfg.Bool("aof-use-rdb-preamble")) && s.Bytes() <= rewriteRestoreMax {
		compress := s.cfg == nil || s.cfg.Bool("rdbcompression")
		emit([][]byte{[]byte("RESTORE"), k, []byte("0"), rdb.Dump(streamToRDB(s), compress)})
		return
	}
	if s.Length > 0 {
		s.Range(stream.ID{}, stream.Max, false, func(id stream.ID, fv [][]byte) bool {
			args := make([][]byte, 0, 3+len(fv))
			args = append(args, []byte("XADD"), k, idArg(id))
			for _, b := range fv {
				args = append(args, append([]byte(nil), b...))
			}
			emit(args)
			return true
		})
	} else {
		emit([][]byte{[]byte("XADD"), k, []byte("MAXLEN"), []byte("0"), []byte("0-1"), []byte("x"), []byte("y")})
	}
	emit([][]byte{[]byte("XSETID"), k, idArg(s.LastID), []byte("ENTRIESADDED"),
		strconv.AppendUint(nil, s.EntriesAdded, 10), []byte("MAXDELETEDID"), idArg(s.MaxDeletedID)})
	for _, g := range s.Groups() {
		gn := []byte(g.Name)
		emit([][]byte{[]byte("XGROUP"), []byte("CREATE"), k, gn, idArg(g.LastID), []byte("ENTRIESREAD"),
			strconv.AppendInt(nil, g.EntriesRead, 10)})
		g.Consumers(func(c *stream.Consumer) bool {
			if c.PEL.Len() == 0 {
				emit([][]byte{[]byte("XGROUP"), []byte("CREATECONSUMER"), k, gn, []byte(c.Name)})
				return true
			}
			c.PEL.Scan(func(n *stream.NACK) bool {
				emit([][]byte{[]byte("XCLAIM"), k, gn, []byte(c.Name), []byte("0"), idArg(n.ID),
					[]byte("TIME"), strconv.AppendInt(nil, n.DeliveryTime, 10),
					[]byte("RETRYCOUNT"), strconv.AppendInt(nil, n.DeliveryCount, 10),
					[]byte("JUSTID"), []byte("FORCE")})
				return true
			})
			return true
		})
	}
}

func registerStreams(t *Table) {
	t.register("xadd", xaddCommand)
	t.register("xrange", func(c *Ctx) { xrangeCommand(c, false) })
	t.register("xrevrange", func(c *Ctx) { xrangeCommand(c, true) })
	t.register("xlen", xlenCommand)
	t.register("xdel", xdelCommand)
	t.register("xtrim", xtrimCommand)
	t.register("xread", func(c *Ctx) { xreadCommand(c, false) })
	t.register("xreadgroup", func(c *Ctx) { xreadCommand(c, true) })
	t.register("xack", xackCommand)
	t.register("xpending", xpendingCommand)
	t.register("xclaim", xclaimCommand)
	t.register("xautoclaim", xautoclaimCommand)
	t.register("xsetid", xsetidCommand)
	t.registerContainer("xgroup")
	for _, sub := range []string{"create", "setid", "destroy", "createconsumer", "delconsumer"} {
		t.register("xgroup|"+sub, xgroupCommand)
	}
	t.register("xgroup|help", xgroupCommand)
	t.registerContainer("xinfo")
	for _, sub := range []string{"stream", "groups", "consumers", "help"} {
		t.register("xinfo|"+sub, xinfoCommand)
	}
}

// streamNow is Redis's mstime() for stream bookkeeping (delivery and
// seen times, generated IDs): the command's clock, except while the AOF
// replays, whose clock is held at the epoch (aof/load.go, so that nothing
// expires) while Redis's delivery times stay real.
func streamNow(c *Ctx) int64 {
	if c.Client != nil && c.Client.Kind == "aof" {
		return NowMs()
	}
	return c.Now
}

// ---- IDs ----

// string2ull is Redis's string2ull: a canonical long long that is not
// negative, else glibc's strtoull over the whole string.
func string2ull(b []byte) (uint64, bool) {
	if n, ok := ParseInt(b); ok {
		if n < 0 {
			return 0, false
		}
		return uint64(n), true
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) || len(b) == 0 {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		ch := b[i]
		if ch < '0' || ch > '9' {
			return 0, false
		}
		d := uint64(ch - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false // ERANGE
		}
		v = v*10 + d
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseStreamID is streamGenericParseIDOrReply without the reply:
// seqStar accepts "<ms>-*" (seqGiven false then).
func parseStreamID(arg []byte, missingSeq uint64, strict, seqStar bool) (id stream.ID, seqGiven, ok bool) {
	if len(arg) > 127 {
		return id, false, false
	}
	b := cString(arg)
	if strict && len(b) == 1 && (b[0] == '-' || b[0] == '+') {
		return id, false, false
	}
	seqGiven = true
	if len(b) == 1 && b[0] == '-' {
		return stream.ID{}, true, true
	}
	if len(b) == 1 && b[0] == '+' {
		return stream.Max, true, true
	}
	msPart, seqPart, dot := b, []byte(nil), false
	for i, ch := range b {
		if ch == '-' {
			msPart, seqPart, dot = b[:i], b[i+1:], true
			break
		}
	}
	ms, okMs := string2ull(msPart)
	if !okMs {
		return id, false, false
	}
	seq := missingSeq
	if dot {
		if seqStar && len(seqPart) == 1 && seqPart[0] == '*' {
			seq, seqGiven = 0, false
		} else if seq, ok = string2ull(seqPart); !ok {
			return id, false, false
		}
	}
	return stream.ID{Ms: ms, Seq: seq}, seqGiven, true
}

// streamIDArg parses args[i] as an ID, replying the error if invalid.
func streamIDArg(c *Ctx, i int, missingSeq uint64, strict bool) (stream.ID, bool) {
	id, _, ok := parseStreamID(c.Args[i], missingSeq, strict, false)
	if !ok {
		c.Error(ErrStreamID)
	}
	return id, ok
}

// intervalID is streamParseIntervalIDOrReply: "(" makes it exclusive.
func intervalID(c *Ctx, i int, missingSeq uint64) (id stream.ID, excl, ok bool) {
	a := c.Args[i]
	if len(a) > 1 && a[0] == '(' {
		id, _, ok = parseStreamID(a[1:], missingSeq, true, false)
		excl = true
	} else {
		id, _, ok = parseStreamID(a, missingSeq, false, false)
	}
	if !ok {
		c.Error(ErrStreamID)
	}
	return id, excl, ok
}

func idBulk(w *resp.Writer, id stream.ID) {
	var buf [48]byte
	w.Bulk(id.Append(buf[:0]))
}

// ---- lookups ----

func getStream(c *Ctx, key []byte) (*Stream, bool) { return Get[*Stream](c, key) }

// existingStream is the stream at key, or nil after replying "no such
// key" or WRONGTYPE (XSETID, XINFO).
func existingStream(c *Ctx, key []byte) *Stream {
	s, ok := getStream(c, key)
	if ok && s == nil {
		c.Error(ErrNoSuchKey)
	}
	return s
}

func noGroupErr(c *Ctx, format string, args ...[]byte) {
	b := []byte("NOGROUP ")
	j := 0
	for i := 0; i < len(format); i++ {
		if format[i] == '%' && i+1 < len(format) && format[i+1] == 's' && j < len(args) {
			b = append(b, args[j]...)
			j++
			i++
			continue
		}
		b = append(b, format[i])
	}
	c.Error(string(b))
}

// ---- XADD / XTRIM ----

type addTrimArgs struct {
	stream.TrimArgs
	id        stream.ID
	idGiven   bool
	seqGiven  bool
	noMk      bool
	argIdx    int // index of the MAXLEN/MINID argument
	limitSeen bool
}

// parseAddTrim is streamParseAddOrTrimArgsOrReply; it returns the index
// of the ID argument (XADD), or -1 after an error reply.
func parseAddTrim(c *Ctx, a *addTrimArgs, xadd bool) int {
	i := 2
	for ; i < len(c.Args); i++ {
		more := len(c.Args) - 1 - i
		opt := c.Args[i]
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			goto done
		case EqualFold(opt, "maxlen") && more > 0, EqualFold(opt, "minid") && more > 0:
			if a.Strategy != stream.TrimNone {
				c.Error(ErrStreamMaxMin)
				return -1
			}
			minid := EqualFold(opt, "minid")
			a.Approx = false
			next := c.Args[i+1]
			if more >= 2 && len(next) == 1 && next[0] == '~' {
				a.Approx = true
				i++
			} else if more >= 2 && len(next) == 1 && next[0] == '=' {
				i++
			}
			if minid {
				id, _, ok := parseStreamID(c.Args[i+1], 0, true, false)
				if !ok {
					c.Error(ErrStreamID)
					return -1
				}
				a.MinID = id
				a.Strategy = stream.TrimMinID
			} else {
				n, ok := c.IntArg(i + 1)
				if !ok {
					return -1
				}
				if n < 0 {
					c.Error(ErrStreamMaxLenNeg)
					return -1
				}
				a.MaxLen = n
				a.Strategy = stream.TrimMaxLen
			}
			i++
			a.argIdx = i
		case EqualFold(opt, "limit") && more > 0:
			n, ok := c.IntArg(i + 1)
			if !ok {
				return -1
			}
			if n < 0 {
				c.Error(ErrStreamLimitNeg)
				return -1
			}
			a.Limit = n
			a.limitSeen = true
			i++
		case xadd && EqualFold(opt, "nomkstream"):
			a.noMk = true
		case xadd:
			id, seqGiven, ok := parseStreamID(opt, 0, true, true)
			if !ok {
				c.Error(ErrStreamID)
				return -1
			}
			a.id, a.seqGiven, a.idGiven = id, seqGiven, true
			goto done
		default:
			c.Error(ErrSyntax)
			return -1
		}
	}
done:
	if a.Limit != 0 && a.Strategy == stream.TrimNone {
		c.Error(ErrStreamLimitNoTrim)
		return -1
	}
	if !xadd && a.Strategy == stream.TrimNone {
		c.Error(ErrStreamXtrimNoStr)
		return -1
	}
	if c.Client != nil && (c.Client.Kind == KindMaster || c.Client.Kind == "aof") {
		a.Limit = 0
	} else if a.limitSeen {
		if !a.Approx {
			c.Error(ErrStreamLimitNoApx)
			return -1
		}
	} else if a.Approx {
		_, maxEntries := c.E.Config.streamNodeLimits()
		a.Limit = 100 * maxEntries
		if a.Limit <= 0 {
			a.Limit = 10000
		}
		if a.Limit > 1000000 {
			a.Limit = 1000000
		}
	} else {
		a.Limit = 0
	}
	return i
}

// rewriteTrim makes an approximate trim exact for propagation, the new
// arguments' bytes appended to b.
func rewriteTrim(args [][]byte, b []byte, s *Stream, a *addTrimArgs) []byte {
	st := len(b)
	b = append(b, '=')
	if a.Strategy == stream.TrimMaxLen {
		b = strconv.AppendUint(b, s.Length, 10)
	} else {
		first, _ := s.FirstValid()
		b = first.Append(b)
	}
	args[a.argIdx-1] = b[st : st+1 : st+1]
	args[a.argIdx] = b[st+1 : len(b) : len(b)]
	return b
}

// xaddProp holds a rewritten XADD for propagation: its arguments and the
// bytes of those rewritten (the generated ID, an exact trim's "=" and its
// length: at most 62 bytes; a MINID's first ID may take the bytes
// elsewhere). The engine has one, reused by every XADD: what is
// propagated is consumed before the command returns (the AOF and the
// replication feed encode it at once, a script copies it), as the
// arguments of any other command, which point into the connection's
// read buffer; so XADD allocates nothing to propagate.
type xaddProp struct {
	args [10][]byte
	buf  [64]byte
}

// newProp copies args for rewriting; b is room for the new arguments.
func newProp(c *Ctx) (prop [][]byte, b []byte) {
	p := &c.E.xaddProp
	if len(c.Args) <= len(p.args) {
		prop = p.args[:len(c.Args):len(c.Args)]
		copy(prop, c.Args)
		return prop, p.buf[:0]
	}
	return append([][]byte(nil), c.Args...), make([]byte, 0, len(p.buf))
}

// streamModified is Ctx.Modified for the stream s at key, which the
// command holds: the same accounting without looking the key up again.
func streamModified(c *Ctx, key []byte, s *Stream) {
	streamRecount(c, key, s)
	c.changed(key)
}

// streamRecount is Ctx.recount for the stream s at key.
func streamRecount(c *Ctx, key []byte, s *Stream) {
	n := keyMemoryUsage(view(key), ObjectValue(s))
	c.DB.used += n - s.counted
	s.counted = n
}

func xaddCommand(c *Ctx) {
	var a addTrimArgs
	idpos := parseAddTrim(c, &a, true)
	if idpos < 0 {
		return
	}
	fieldPos := idpos + 1
	if n := len(c.Args) - fieldPos; n < 2 || n%2 == 1 {
		c.Error("ERR wrong number of arguments for 'xadd' command")
		return
	}
	if a.idGiven && a.seqGiven && a.id.IsZero() {
		c.Error(ErrStreamIDZero)
		return
	}
	key := c.Args[1]
	s, ok := getStream(c, key)
	if !ok {
		return
	}
	created := false
	if s == nil {
		if a.noMk {
			c.W.Null()
			return
		}
		s = c.E.newStream()
		created = true
	}
	if s.LastID == stream.Max {
		c.Error(ErrStreamExhausted)
		return
	}
	// The new ID (streamAppendItem).
	var id stream.ID
	switch {
	case !a.idGiven:
		ms := uint64(max(streamNow(c), 0))
		if ms > s.LastID.Ms {
			id = stream.ID{Ms: ms}
		} else {
			id, ok = s.LastID.Incr()
			if !ok {
				id = stream.ID{} // wraps: refused below
			}
		}
	case a.seqGiven:
		id = a.id
	default:
		if s.LastID.Ms == a.id.Ms {
			if s.LastID.Seq == math.MaxUint64 {
				// Redis fails here without setting errno to EDOM, so it
				// reports the other error of streamAppendItem.
				c.Error(ErrStreamTooLarge)
				return
			}
			id = stream.ID{Ms: a.id.Ms, Seq: s.LastID.Seq + 1}
		} else {
			id = a.id
		}
	}
	if id.Cmp(s.LastID) <= 0 {
		c.Error(ErrStreamIDSmall)
		return
	}
	fv := c.Args[fieldPos:]
	tot := 0
	for _, b := range fv {
		tot += len(b)
	}
	if tot > stream.MaxListpackSize {
		c.Error(ErrStreamTooLarge)
		return
	}
	if created {
		c.Add(key, ObjectValue(s))
	}
	maxBytes, maxEntries := c.E.Config.streamNodeLimits()
	s.Append(id, fv, maxBytes, maxEntries)
	// Propagated with the ID it got and an approximate trim made exact.
	var prop [][]byte
	var pb []byte
	genID, approx := !a.idGiven || !a.seqGiven, a.Strategy != stream.TrimNone && a.Approx
	if genID || approx {
		prop, pb = newProp(c)
	}
	pb = id.Append(pb)
	idStr := pb[:len(pb):len(pb)]
	pb = pb[len(pb):]
	c.W.Bulk(idStr)
	streamModified(c, key, s)
	c.Dirty(1)
	if a.Strategy != stream.TrimNone {
		if s.Trim(a.TrimArgs) > 0 {
			c.changedAs(key, "xtrim")
			streamRecount(c, key, s)
		}
		if approx {
			rewriteTrim(prop, pb, s, &a)
		}
	}
	if genID {
		prop[idpos] = idStr
	}
	if prop != nil {
		c.Propagate(prop...)
	}
	c.Ready(key)
}

func xtrimCommand(c *Ctx) {
	var a addTrimArgs
	if parseAddTrim(c, &a, false) < 0 {
		return
	}
	key := c.Args[1]
	s, ok := getStream(c, key)
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	n := s.Trim(a.TrimArgs)
	if n > 0 {
		if a.Approx {
			prop := append([][]byte{}, c.Args...)
			rewriteTrim(prop, nil, s, &a)
			c.Propagate(prop...)
		}
		c.Modified(key)
		c.Dirty(int(n))
	}
	c.W.Int(n)
}

// ---- XRANGE / XREVRANGE / XLEN / XDEL ----

func writeEntry(w *resp.Writer, id stream.ID, fv [][]byte) {
	w.Array(2)
	idBulk(w, id)
	w.Array(len(fv))
	for _, b := range fv {
		w.Bulk(b)
	}
}

func xrangeCommand(c *Ctx, rev bool) {
	si, ei := 2, 3
	if rev {
		si, ei = 3, 2
	}
	start, sx, ok := intervalID(c, si, 0)
	if !ok {
		return
	}
	if sx {
		if start, ok = start.Incr(); !ok {
			c.Error(ErrStreamStartID)
			return
		}
	}
	end, ex, ok := intervalID(c, ei, math.MaxUint64)
	if !ok {
		return
	}
	if ex {
		if end, ok = end.Decr(); !ok {
			c.Error(ErrStreamEndID)
			return
		}
	}
	count := int64(-1)
	for j := 4; j < len(c.Args); j++ {
		if c.ArgIs(j, "count") && j+1 < len(c.Args) {
			n, ok := c.IntArg(j + 1)
			if !ok {
				return
			}
			count = max(n, 0)
			j++
		} else {
			c.Error(ErrSyntax)
			return
		}
	}
	s, ok := getStream(c, c.Args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Array(0)
		return
	}
	if count == 0 {
		c.W.NullArray()
		return
	}
	at := c.W.Len()
	n := int64(0)
	s.Range(start, end, rev, func(id stream.ID, fv [][]byte) bool {
		writeEntry(c.W, id, fv)
		n++
		return count < 0 || n < count
	})
	deferredLen(c.W, at, '*', int(n))
}

// deferredLen writes, before what w holds from at on, the header (kind
// '*' or '%') of an aggregate of n elements: Redis's addReplyDeferredLen.
// The elements are written in place as they are found, then moved by the
// header's few bytes, instead of being built in a buffer of their own.
func deferredLen(w *resp.Writer, at int, kind byte, n int) {
	w.InsertHeader(at, resp.Kind(kind), n)
}

func xlenCommand(c *Ctx) {
	s, ok := getStream(c, c.Args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(s.Length))
}

func xdelCommand(c *Ctx) {
	key := c.Args[1]
	s, ok := getStream(c, key)
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	ids := make([]stream.ID, 0, len(c.Args)-2)
	for j := 2; j < len(c.Args); j++ {
		id, ok := streamIDArg(c, j, 0, true)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	deleted, first := 0, false
	for _, id := range ids {
		if s.Delete(id) {
			if id == s.FirstID {
				first = true
			}
			if id.Cmp(s.MaxDeletedID) > 0 {
				s.MaxDeletedID = id
			}
			deleted++
		}
	}
	if deleted > 0 {
		if s.Length == 0 {
			s.FirstID = stream.ID{}
		} else if first {
			s.FirstID, _ = s.FirstValid()
		}
		c.Modified(key)
		c.Dirty(deleted)
	}
	c.W.Int(int64(deleted))
}

// ---- consumer groups: shared logic ----

// hasTombstones is streamRangeHasTombstones from start to the end.
func hasTombstones(s *Stream, start stream.ID) bool {
	if s.Length == 0 || s.MaxDeletedID.IsZero() {
		return false
	}
	if s.FirstID.Cmp(s.MaxDeletedID) > 0 {
		return false
	}
	return start.Cmp(s.MaxDeletedID) <= 0
}

// estimateDistance is streamEstimateDistanceFromFirstEverEntry (-1: unknown).
func estimateDistance(s *Stream, id stream.ID) int64 {
	if s.EntriesAdded == 0 {
		return 0
	}
	if s.Length == 0 && id.Cmp(s.LastID) < 1 {
		return int64(s.EntriesAdded)
	}
	cmpLast := id.Cmp(s.LastID)
	if cmpLast == 0 {
		return int64(s.EntriesAdded)
	} else if cmpLast > 0 {
		return -1
	}
	cmpFirst := id.Cmp(s.FirstID)
	if s.MaxDeletedID.IsZero() || s.MaxDeletedID.Cmp(s.FirstID) < 0 {
		if cmpFirst < 0 {
			return int64(s.EntriesAdded - s.Length)
		} else if cmpFirst == 0 {
			return int64(s.EntriesAdded - s.Length + 1)
		}
	}
	return -1
}

func writeLag(w *resp.Writer, s *Stream, g *stream.Group) {
	switch {
	case s.EntriesAdded == 0:
		w.Int(0)
	case g.EntriesRead != -1 && !hasTombstones(s, g.LastID):
		w.Int(int64(s.EntriesAdded) - g.EntriesRead)
	default:
		if er := estimateDistance(s, g.LastID); er != -1 {
			w.Int(int64(s.EntriesAdded) - er)
		} else {
			w.Null()
		}
	}
}

func writeEntriesRead(w *resp.Writer, g *stream.Group) {
	if g.EntriesRead != -1 {
		w.Int(g.EntriesRead)
	} else {
		w.Null()
	}
}

// propagateXclaim propagates the delivery of id as Redis's
// streamPropagateXCLAIM. It runs for every entry XREADGROUP delivers, so
// the arguments are cut from one buffer: two allocations in all.
func propagateXclaim(c *Ctx, key, group []byte, g *stream.Group, id stream.ID, n *stream.NACK) {
	const words = "XCLAIM0TIMERETRYCOUNTFORCEJUSTIDLASTID"
	b := make([]byte, 0, len(words)+len(n.Consumer.Name)+2*41+2*20)
	b = append(b, words...)
	cut := func(i, j int) []byte { return b[i:j:j] }
	p0 := len(b)
	b = append(b, n.Consumer.Name...)
	p1 := len(b)
	b = id.Append(b)
	p2 := len(b)
	b = strconv.AppendInt(b, n.DeliveryTime, 10)
	p3 := len(b)
	b = strconv.AppendInt(b, n.DeliveryCount, 10)
	p4 := len(b)
	b = g.LastID.Append(b)
	p5 := len(b)
	c.Propagate(cut(0, 6), key, group, cut(p0, p1), cut(6, 7), cut(p1, p2),
		cut(7, 11), cut(p2, p3), cut(11, 21), cut(p3, p4),
		cut(21, 26), cut(26, 32), cut(32, 38), cut(p4, p5))
}

func propagateGroupID(c *Ctx, key, group []byte, g *stream.Group) {
	c.Propagate([]byte("XGROUP"), []byte("SETID"), key, group, idArg(g.LastID),
		[]byte("ENTRIESREAD"), strconv.AppendInt(nil, g.EntriesRead, 10))
}

// noPropagate stops the implicit propagation of the command's own
// arguments (preventCommandPropagation): what it changed it propagated.
func (c *Ctx) noPropagate() {
	if c.prop == nil {
		c.prop = [][][]byte{}
	}
}

// createConsumer is streamCreateConsumer with notification and dirty.
func createConsumer(c *Ctx, g *stream.Group, name, key []byte) *stream.Consumer {
	cons := g.CreateConsumer(name, streamNow(c))
	if cons != nil {
		c.Dirty(1)
		c.Notify(key, "xgroup-createconsumer")
	}
	return cons
}

func lookupConsumer(c *Ctx, g *stream.Group, name []byte, refresh bool) *stream.Consumer {
	cons := g.Consumer(name)
	if cons != nil && refresh {
		cons.SeenTime = streamNow(c)
	}
	return cons
}

// replyRange is streamReplyWithRange writing to w; with a group it
// delivers (moves last_id, creates NACKs, propagates XCLAIMs).
func replyRange(c *Ctx, w *resp.Writer, s *Stream, start, end stream.ID, count int64, rev bool,
	g *stream.Group, cons *stream.Consumer, noack bool, key, group []byte) int64 {
	at := w.Len()
	var n int64
	propLast := false
	s.Range(start, end, rev, func(id stream.ID, fv [][]byte) bool {
		if g != nil && id.Cmp(g.LastID) > 0 {
			if g.EntriesRead != -1 && !hasTombstones(s, id) {
				g.EntriesRead++
			} else if s.EntriesAdded != 0 {
				g.EntriesRead = estimateDistance(s, id)
			}
			g.LastID = id
			if noack {
				propLast = true
			}
		}
		writeEntry(w, id, fv)
		if g != nil && !noack {
			nack := g.Pending(id)
			if nack == nil {
				nack = &stream.NACK{ID: id, DeliveryTime: streamNow(c), DeliveryCount: 1, Consumer: cons}
				g.PEL.Set(nack)
				cons.PEL.Set(nack)
			} else {
				nack.Consumer.PEL.Delete(nack)
				nack.Consumer = cons
				nack.DeliveryTime = streamNow(c)
				nack.DeliveryCount = 1
				cons.PEL.Set(nack)
			}
			propagateXclaim(c, key, group, g, id, nack)
		}
		n++
		return count == 0 || n < count
	})
	if propLast {
		propagateGroupID(c, key, group, g)
	}
	deferredLen(w, at, '*', int(n))
	return n
}

// replyHistory is streamReplyWithRangeFromConsumerPEL.
func replyHistory(c *Ctx, w *resp.Writer, s *Stream, start stream.ID, count int64, cons *stream.Consumer) {
	at := w.Len()
	var n int64
	cons.PEL.Ascend(&stream.NACK{ID: start}, func(nack *stream.NACK) bool {
		if count != 0 && n >= count {
			return false
		}
		found := s.Get(nack.ID, func(fv [][]byte) { writeEntry(w, nack.ID, fv) })
		if !found {
			w.Array(2)
			idBulk(w, nack.ID)
			w.NullArray()
		} else {
			nack.DeliveryTime = streamNow(c)
			nack.DeliveryCount++
		}
		n++
		return true
	})
	deferredLen(w, at, '*', int(n))
}

// ---- XREAD / XREADGROUP ----

const xreadBlockedDefaultCount = 1000

func xreadCommand(c *Ctx, xreadgroup bool) {
	timeout := int64(-1)
	var count int64
	streamsArg, nstreams := 0, 0
	noack := false
	var groupName, consumerName []byte
	for i := 1; i < len(c.Args); i++ {
		more := len(c.Args) - i - 1
		switch o := c.Args[i]; {
		case EqualFold(o, "block") && more > 0:
			if c.InScript {
				c.Error("ERR " + string(c.Args[0]) + " command is not allowed with BLOCK option from scripts")
				return
			}
			i++
			n, ok := ParseInt(c.Args[i])
			if !ok {
				c.Error("ERR timeout is not an integer or out of range")
				return
			}
			if n < 0 {
				c.Error(ErrTimeoutNegative)
				return
			}
			if n > 0 {
				if n > math.MaxInt64-c.Now {
					c.Error("ERR timeout is out of range")
					return
				}
				n += c.Now
			}
			timeout = n
		case EqualFold(o, "count") && more > 0:
			i++
			n, ok := c.IntArg(i)
			if !ok {
				return
			}
			count = max(n, 0)
		case EqualFold(o, "streams") && more > 0:
			streamsArg = i + 1
			nstreams = len(c.Args) - streamsArg
			if nstreams%2 != 0 {
				c.Error("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
				return
			}
			nstreams /= 2
			i = len(c.Args)
		case EqualFold(o, "group") && more >= 2:
			if !xreadgroup {
				c.Error("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
				return
			}
			groupName, consumerName = c.Args[i+1], c.Args[i+2]
			i += 2
		case EqualFold(o, "noack"):
			if !xreadgroup {
				c.Error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
				return
			}
			noack = true
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	if streamsArg == 0 {
		c.Error(ErrSyntax)
		return
	}
	if xreadgroup && groupName == nil {
		c.Error("ERR Missing GROUP option for XREADGROUP")
		return
	}
	ids := make([]stream.ID, nstreams)
	var groups []*stream.Group
	if groupName != nil {
		groups = make([]*stream.Group, nstreams)
	}
	for k := 0; k < nstreams; k++ {
		key := c.Args[streamsArg+k]
		arg := c.Args[streamsArg+nstreams+k]
		s, ok := getStream(c, key)
		if !ok {
			return
		}
		if groupName != nil {
			var g *stream.Group
			if s != nil {
				g = s.Group(groupName)
			}
			if g == nil {
				noGroupErr(c, "No such key '%s' or consumer group '%s' in XREADGROUP with GROUP option", key, groupName)
				return
			}
			groups[k] = g
		}
		switch {
		case len(arg) == 1 && arg[0] == '$':
			if xreadgroup {
				c.Error("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
				return
			}
			if s != nil {
				ids[k] = s.LastID
			}
			continue
		case len(arg) == 1 && arg[0] == '>':
			if !xreadgroup {
				c.Error("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
				return
			}
			ids[k] = stream.Max
			continue
		}
		id, _, ok := parseStreamID(arg, 0, true, false)
		if !ok {
			c.Error(ErrStreamID)
			return
		}
		ids[k] = id
	}
	c.noPropagate()
	at := c.W.Len()
	sub := c.W // the streams served are written in place, their count before them
	served := 0
	for k := 0; k < nstreams; k++ {
		key := c.Args[streamsArg+k]
		v, found := c.Lookup(key) // again, as Redis (a second keymiss)
		if !found {
			continue
		}
		s := v.o.(*Stream)
		gt := ids[k]
		sync, history := false, false
		if groups != nil {
			if gt != stream.Max {
				sync, history = true, true
			} else if s.Length > 0 {
				if maxid, _ := s.LastValid(); maxid.Cmp(groups[k].LastID) > 0 {
					sync = true
					gt = groups[k].LastID
				}
			}
		} else if s.Length > 0 {
			if maxid, _ := s.LastValid(); maxid.Cmp(gt) > 0 {
				sync = true
			}
		}
		if !sync {
			continue
		}
		served++
		start, _ := gt.Incr()
		if c.W.Proto == 2 {
			sub.Array(2)
		}
		sub.Bulk(key)
		var g *stream.Group
		var cons *stream.Consumer
		if groups != nil {
			g = groups[k]
			cons = lookupConsumer(c, g, consumerName, true)
			if cons == nil {
				cons = createConsumer(c, g, consumerName, key)
				if noack {
					c.Propagate([]byte("XGROUP"), []byte("CREATECONSUMER"), key, groupName, consumerName)
				}
			}
		}
		if history {
			replyHistory(c, sub, s, start, count, cons)
		} else {
			replyRange(c, sub, s, start, stream.Max, count, false, g, cons, noack, key, groupName)
		}
		if groups != nil {
			c.Dirty(1)
			c.recount(key)
		}
	}
	if served > 0 {
		if c.W.Proto == 2 {
			deferredLen(c.W, at, '*', served)
		} else {
			deferredLen(c.W, at, '%', served)
		}
		return
	}
	if timeout == -1 || c.NoBlock {
		c.W.NullArray()
		return
	}
	keys := c.Args[streamsArg : streamsArg+nstreams]
	bcount := count
	if bcount == 0 {
		bcount = xreadBlockedDefaultCount
	}
	var gname, cname []byte
	if groupName != nil {
		gname, cname = append([]byte{}, groupName...), append([]byte{}, consumerName...)
	}
	wt := &Waiter{Keys: keys, Deadline: timeout}
	wt.Serve = func(c *Ctx) bool {
		key := wt.ReadyKey
		idx := 0
		for i, k := range wt.Keys {
			if string(k) == string(key) {
				idx = i
				break
			}
		}
		v, found := c.DB.lookup(c, view(key), false)
		s, isStream := v.o.(*Stream)
		if gname != nil && (!found || !isStream) {
			c.Error(ErrStreamUnblocked)
			return true
		}
		if !found || !isStream {
			return false
		}
		gt := ids[idx]
		var g *stream.Group
		if gname != nil {
			if g = s.Group(gname); g == nil {
				c.Error(ErrStreamGroupGone)
				return true
			}
			gt = g.LastID
		}
		if s.LastID.Cmp(gt) <= 0 {
			return false
		}
		start, _ := gt.Incr()
		var cons *stream.Consumer
		if g != nil {
			cons = lookupConsumer(c, g, cname, true)
			if cons == nil {
				cons = createConsumer(c, g, cname, key)
				if noack {
					c.Propagate([]byte("XGROUP"), []byte("CREATECONSUMER"), key, gname, cname)
				}
			}
		}
		if c.W.Proto == 2 {
			c.W.Array(1)
			c.W.Array(2)
		} else {
			c.W.Map(1)
		}
		c.W.Bulk(key)
		replyRange(c, c.W, s, start, stream.Max, bcount, false, g, cons, noack, key, gname)
		if g != nil {
			c.Dirty(1)
			c.recount(key)
		}
		return true
	}
	c.Block(wt)
}

// ---- XGROUP ----

func xgroupCommand(c *Ctx) {
	sub := c.Cmd.Name[len("xgroup|"):]
	if sub == "help" {
		helpReply(c, "XGROUP",
			"CREATE <key> <groupname> <id|$> [option]",
			"    Create a new consumer group. Options are:",
			"    * MKSTREAM",
			"      Create the empty stream if it does not exist.",
			"    * ENTRIESREAD entries_read",
			"      Set the group's entries_read counter (internal use).",
			"CREATECONSUMER <key> <groupname> <consumer>",
			"    Create a new consumer in the specified group.",
			"DELCONSUMER <key> <groupname> <consumer>",
			"    Remove the specified consumer.",
			"DESTROY <key> <groupname>",
			"    Remove the specified group.",
			"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
			"    Set the current group ID and entries_read counter.")
		return
	}
	subErr := func() {
		c.Error("ERR unknown subcommand or wrong number of arguments for '" + truncate(string(c.Args[1]), 128) + "'. Try XGROUP HELP.")
	}
	mkstream := false
	entriesRead := int64(-1)
	create, setid := sub == "create", sub == "setid"
	for i := 5; i < len(c.Args); {
		switch {
		case create && c.ArgIs(i, "mkstream"):
			mkstream = true
			i++
		case (create || setid) && c.ArgIs(i, "entriesread") && i+1 < len(c.Args):
			n, ok := c.IntArg(i + 1)
			if !ok {
				return
			}
			if n < 0 && n != -1 {
				c.Error(ErrStreamEntriesRead)
				return
			}
			entriesRead = n
			i += 2
		default:
			subErr()
			return
		}
	}
	key, gname := c.Args[2], c.Args[3]
	s, ok := getStream(c, key)
	if !ok {
		return
	}
	var g *stream.Group
	if !mkstream {
		if s == nil {
			c.Error(ErrStreamNeedKey)
			return
		}
		g = s.Group(gname)
		if g == nil && (setid || sub == "createconsumer" || sub == "delconsumer") {
			noGroupErr(c, "No such consumer group '%s' for key name '%s'", gname, key)
			return
		}
	}
	switch {
	case create && len(c.Args) >= 5 && len(c.Args) <= 8:
		var id stream.ID
		if len(c.Args[4]) == 1 && c.Args[4][0] == '$' {
			if s != nil {
				id = s.LastID
			}
		} else if id, ok = streamIDArg(c, 4, 0, true); !ok {
			return
		}
		if s == nil {
			s = c.E.newStream()
			c.quietly(func() { c.Add(key, ObjectValue(s)) }) // dbAdd: only "new" is notified
		}
		if s.CreateGroup(gname, id, entriesRead) != nil {
			c.W.OK()
			c.Dirty(1)
			c.recount(key)
			c.Notify(key, "xgroup-create")
		} else {
			c.Error(ErrStreamBusyGroup)
		}
	case setid && (len(c.Args) == 5 || len(c.Args) == 7):
		var id stream.ID
		if len(c.Args[4]) == 1 && c.Args[4][0] == '$' {
			id = s.LastID
		} else if id, ok = streamIDArg(c, 4, 0, false); !ok {
			return
		}
		g.LastID = id
		g.EntriesRead = entriesRead
		c.W.OK()
		c.Dirty(1)
		c.Notify(key, "xgroup-setid")
	case sub == "destroy" && len(c.Args) == 4:
		if g != nil {
			s.DestroyGroup(gname)
			c.W.Int(1)
			c.Dirty(1)
			c.recount(key)
			c.Notify(key, "xgroup-destroy")
			c.Ready(key) // blocked XREADGROUP clients get NOGROUP
		} else {
			c.W.Int(0)
		}
	case sub == "createconsumer" && len(c.Args) == 5:
		if createConsumer(c, g, c.Args[4], key) != nil {
			c.W.Int(1)
			c.recount(key)
		} else {
			c.W.Int(0)
		}
	case sub == "delconsumer" && len(c.Args) == 5:
		var pending int64
		if cons := g.Consumer(c.Args[4]); cons != nil {
			pending = int64(cons.PEL.Len())
			g.DeleteConsumer(cons)
			c.Dirty(1)
			c.recount(key)
			c.Notify(key, "xgroup-delconsumer")
		}
		c.W.Int(pending)
	default:
		subErr()
	}
}

// ---- XSETID ----

func xsetidCommand(c *Ctx) {
	id, ok := streamIDArg(c, 2, 0, true)
	if !ok {
		return
	}
	var maxDel stream.ID
	entriesAdded := int64(-1)
	for i := 3; i < len(c.Args); {
		more := len(c.Args) - 1 - i
		switch {
		case c.ArgIs(i, "entriesadded") && more > 0:
			n, ok := c.IntArg(i + 1)
			if !ok {
				return
			}
			if n < 0 {
				c.Error("ERR entries_added must be positive")
				return
			}
			entriesAdded = n
			i += 2
		case c.ArgIs(i, "maxdeletedid") && more > 0:
			if maxDel, ok = streamIDArg(c, i+1, 0, true); !ok {
				return
			}
			if id.Cmp(maxDel) < 0 {
				c.Error("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
				return
			}
			i += 2
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	key := c.Args[1]
	s := existingStream(c, key)
	if s == nil {
		return
	}
	if s.Length > 0 {
		maxid, _ := s.LastValid()
		if id.Cmp(maxid) < 0 {
			c.Error("ERR The ID specified in XSETID is smaller than the target stream top item")
			return
		}
		if entriesAdded != -1 && s.Length > uint64(entriesAdded) {
			c.Error("ERR The entries_added specified in XSETID is smaller than the target stream length")
			return
		}
	}
	s.LastID = id
	if entriesAdded != -1 {
		s.EntriesAdded = uint64(entriesAdded)
	}
	if !maxDel.IsZero() {
		s.MaxDeletedID = maxDel
	}
	c.W.OK()
	c.Dirty(1)
	c.Notify(key, "xsetid")
}

// ---- XACK / XPENDING ----

func xackCommand(c *Ctx) {
	key := c.Args[1]
	s, ok := getStream(c, key)
	if !ok {
		return
	}
	var g *stream.Group
	if s != nil {
		g = s.Group(c.Args[2])
	}
	if g == nil {
		c.W.Int(0)
		return
	}
	ids := make([]stream.ID, 0, len(c.Args)-3)
	for j := 3; j < len(c.Args); j++ {
		id, ok := streamIDArg(c, j, 0, true)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	n := 0
	for _, id := range ids {
		if g.Ack(id) {
			n++
		}
	}
	if n > 0 {
		c.Dirty(n)
		c.recount(key)
	}
	c.W.Int(int64(n))
}

func xpendingCommand(c *Ctx) {
	argc := len(c.Args)
	justinfo := argc == 3
	if argc != 3 && (argc < 6 || argc > 9) {
		c.Error(ErrSyntax)
		return
	}
	var start, end stream.ID
	var count, minidle int64
	var consumerName []byte
	if argc >= 6 {
		si := 3
		if c.ArgIs(3, "idle") {
			n, ok := c.IntArg(4)
			if !ok {
				return
			}
			minidle = n
			if argc < 8 {
				c.Error(ErrSyntax)
				return
			}
			si += 2
		}
		n, ok := c.IntArg(si + 2)
		if !ok {
			return
		}
		count = max(n, 0)
		var ex bool
		if start, ex, ok = intervalID(c, si, 0); !ok {
			return
		}
		if ex {
			if start, ok = start.Incr(); !ok {
				c.Error(ErrStreamStartID)
				return
			}
		}
		if end, ex, ok = intervalID(c, si+1, math.MaxUint64); !ok {
			return
		}
		if ex {
			if end, ok = end.Decr(); !ok {
				c.Error(ErrStreamEndID)
				return
			}
		}
		if si+3 < argc {
			consumerName = c.Args[si+3]
		}
	}
	s, ok := getStream(c, c.Args[1])
	if !ok {
		return
	}
	var g *stream.Group
	if s != nil {
		g = s.Group(c.Args[2])
	}
	if g == nil {
		noGroupErr(c, "No such key '%s' or consumer group '%s'", c.Args[1], c.Args[2])
		return
	}
	if justinfo {
		c.W.Array(4)
		c.W.Int(int64(g.PEL.Len()))
		if g.PEL.Len() == 0 {
			c.W.Null()
			c.W.Null()
			c.W.NullArray()
			return
		}
		first, _ := g.PEL.Min()
		last, _ := g.PEL.Max()
		idBulk(c.W, first.ID)
		idBulk(c.W, last.ID)
		sub := *c.W.Sub()
		n := 0
		g.Consumers(func(cons *stream.Consumer) bool {
			if cons.PEL.Len() == 0 {
				return true
			}
			sub.Array(2)
			sub.BulkString(cons.Name)
			sub.Bulk(strconv.AppendInt(nil, int64(cons.PEL.Len()), 10))
			n++
			return true
		})
		c.W.Array(n)
		c.W.Append(&sub)
		return
	}
	pel := g.PEL
	if consumerName != nil {
		cons := g.Consumer(consumerName)
		if cons == nil {
			c.W.Array(0)
			return
		}
		pel = cons.PEL
	}
	sub := *c.W.Sub()
	n := 0
	now := streamNow(c)
	pel.Ascend(&stream.NACK{ID: start}, func(nack *stream.NACK) bool {
		if count == 0 || nack.ID.Cmp(end) > 0 {
			return false
		}
		if minidle != 0 && now-nack.DeliveryTime < minidle {
			return true
		}
		n++
		count--
		sub.Array(4)
		idBulk(&sub, nack.ID)
		sub.BulkString(nack.Consumer.Name)
		sub.Int(max(now-nack.DeliveryTime, 0))
		sub.Int(nack.DeliveryCount)
		return true
	})
	c.W.Array(n)
	c.W.Append(&sub)
}

// ---- XCLAIM / XAUTOCLAIM ----

// claimPending gives nack to the consumer named in c.Args[3] (cons, found
// or created on first use and returned), as XCLAIM and XAUTOCLAIM do:
// delivered at dtime, its delivery count set to retry (when >= 0) or
// incremented unless JUSTID; the entry (or its ID) is written to w.
func claimPending(c *Ctx, s *Stream, g *stream.Group, key []byte, cons *stream.Consumer, nack *stream.NACK,
	dtime int64, retry int64, justid bool, w *resp.Writer) *stream.Consumer {
	if cons == nil {
		if cons = lookupConsumer(c, g, c.Args[3], true); cons == nil {
			cons = createConsumer(c, g, c.Args[3], key)
		}
	}
	if nack.Consumer != cons && nack.Consumer != nil {
		nack.Consumer.PEL.Delete(nack)
	}
	nack.DeliveryTime = dtime
	if retry >= 0 {
		nack.DeliveryCount = retry
	} else if !justid {
		nack.DeliveryCount++
	}
	if nack.Consumer != cons {
		cons.PEL.Set(nack)
		nack.Consumer = cons
	}
	if justid {
		idBulk(w, nack.ID)
	} else {
		s.Get(nack.ID, func(fv [][]byte) { writeEntry(w, nack.ID, fv) })
	}
	return cons
}

func xclaimCommand(c *Ctx) {
	key := c.Args[1]
	s, ok := getStream(c, key)
	if !ok {
		return
	}
	var g *stream.Group
	if s != nil {
		g = s.Group(c.Args[2])
	}
	if g == nil {
		noGroupErr(c, "No such key '%s' or consumer group '%s'", key, c.Args[2])
		return
	}
	minidle, ok := ParseInt(c.Args[4])
	if !ok {
		c.Error("ERR Invalid min-idle-time argument for XCLAIM")
		return
	}
	minidle = max(minidle, 0)
	j := 5
	var ids []stream.ID
	for ; j < len(c.Args); j++ {
		id, _, ok := parseStreamID(c.Args[j], 0, true, false)
		if !ok {
			break
		}
		ids = append(ids, id)
	}
	lastIDArg := j - 1
	now := streamNow(c)
	var lastID stream.ID
	retry, dtime := int64(-1), int64(-1)
	force, justid := false, false
	for ; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		opt := c.Args[j]
		switch {
		case EqualFold(opt, "force"):
			force = true
		case EqualFold(opt, "justid"):
			justid = true
		case EqualFold(opt, "idle") && more > 0:
			j++
			n, ok := ParseInt(c.Args[j])
			if !ok {
				c.Error("ERR Invalid IDLE option argument for XCLAIM")
				return
			}
			dtime = now - n
		case EqualFold(opt, "time") && more > 0:
			j++
			n, ok := ParseInt(c.Args[j])
			if !ok {
				c.Error("ERR Invalid TIME option argument for XCLAIM")
				return
			}
			dtime = n
		case EqualFold(opt, "retrycount") && more > 0:
			j++
			n, ok := ParseInt(c.Args[j])
			if !ok {
				c.Error("ERR Invalid RETRYCOUNT option argument for XCLAIM")
				return
			}
			retry = n
		case EqualFold(opt, "lastid") && more > 0:
			j++
			if lastID, ok = streamIDArg(c, j, 0, true); !ok {
				return
			}
		default:
			c.Error("ERR Unrecognized XCLAIM option '" + string(cString(opt)) + "'")
			return
		}
	}
	c.noPropagate()
	propLast := false
	if lastID.Cmp(g.LastID) > 0 {
		g.LastID = lastID
		propLast = true
	}
	if dtime != -1 {
		if dtime < 0 || dtime > now {
			dtime = now
		}
	} else {
		dtime = now
	}
	var cons *stream.Consumer
	sub := *c.W.Sub()
	n := 0
	for k, id := range ids {
		if 5+k > lastIDArg {
			break
		}
		nack := g.Pending(id)
		if !s.Exists(id) {
			if nack != nil {
				propagateXclaim(c, key, c.Args[2], g, id, nack)
				propLast = false
				c.Dirty(1)
				g.Ack(id)
			}
			continue
		}
		if force && nack == nil {
			nack = &stream.NACK{ID: id, DeliveryTime: now, DeliveryCount: 1} // streamCreateNACK
			g.PEL.Set(nack)
		}
		if nack == nil {
			continue
		}
		if nack.Consumer != nil && minidle != 0 && now-nack.DeliveryTime < minidle {
			continue
		}
		cons = claimPending(c, s, g, key, cons, nack, dtime, retry, justid, &sub)
		n++
		propagateXclaim(c, key, c.Args[2], g, id, nack)
		propLast = false
		c.Dirty(1)
	}
	if propLast {
		propagateGroupID(c, key, c.Args[2], g)
		c.Dirty(1)
	}
	c.recount(key)
	c.W.Array(n)
	c.W.Append(&sub)
}

func xautoclaimCommand(c *Ctx) {
	key := c.Args[1]
	minidle, ok := ParseInt(c.Args[4])
	if !ok {
		c.Error("ERR Invalid min-idle-time argument for XAUTOCLAIM")
		return
	}
	minidle = max(minidle, 0)
	start, ex, ok := intervalID(c, 5, 0)
	if !ok {
		return
	}
	if ex {
		if start, ok = start.Incr(); !ok {
			c.Error(ErrStreamStartID)
			return
		}
	}
	count := int64(100)
	justid := false
	for j := 6; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		switch {
		case c.ArgIs(j, "count") && more > 0:
			n, ok := ParseInt(c.Args[j+1])
			if !ok || n < 1 || n > math.MaxInt64/16 {
				c.Error("ERR COUNT must be > 0")
				return
			}
			count = n
			j++
		case c.ArgIs(j, "justid"):
			justid = true
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	s, ok := getStream(c, key)
	if !ok {
		return
	}
	var g *stream.Group
	if s != nil {
		g = s.Group(c.Args[2])
	}
	if g == nil {
		noGroupErr(c, "No such key '%s' or consumer group '%s'", key, c.Args[2])
		return
	}
	c.noPropagate()
	attempts := count * 10
	now := streamNow(c)
	var cons *stream.Consumer
	var deleted []stream.ID
	sub := *c.W.Sub()
	n := 0
	cur := start
	next := stream.ID{}
	for {
		var nack *stream.NACK
		g.PEL.Ascend(&stream.NACK{ID: cur}, func(x *stream.NACK) bool { nack = x; return false })
		if nack == nil {
			break
		}
		if attempts == 0 || count == 0 {
			next = nack.ID
			break
		}
		attempts--
		id := nack.ID
		if after, ok := id.Incr(); ok {
			cur = after
		}
		if !s.Exists(id) {
			propagateXclaim(c, key, c.Args[2], g, id, nack)
			c.Dirty(1)
			g.Ack(id)
			deleted = append(deleted, id)
			count--
			if id == stream.Max {
				break
			}
			continue
		}
		if minidle != 0 && now-nack.DeliveryTime < minidle {
			if id == stream.Max {
				break
			}
			continue
		}
		cons = claimPending(c, s, g, key, cons, nack, now, -1, justid, &sub)
		n++
		count--
		propagateXclaim(c, key, c.Args[2], g, id, nack)
		c.Dirty(1)
		if id == stream.Max {
			break
		}
	}
	c.recount(key)
	c.W.Array(3)
	idBulk(c.W, next)
	c.W.Array(n)
	c.W.Append(&sub)
	c.W.Array(len(deleted))
	for _, id := range deleted {
		idBulk(c.W, id)
	}
}

// ---- XINFO ----

func xinfoCommand(c *Ctx) {
	sub := c.Cmd.Name[len("xinfo|"):]
	subErr := func() {
		c.Error("ERR unknown subcommand or wrong number of arguments for '" + truncate(string(c.Args[1]), 128) + "'. Try XINFO HELP.")
	}
	if sub == "help" {
		helpReply(c, "XINFO",
			"CONSUMERS <key> <groupname>",
			"    Show consumers of <groupname>.",
			"GROUPS <key>",
			"    Show the stream consumer groups.",
			"STREAM <key> [FULL [COUNT <count>]",
			"    Show information about the stream.")
		return
	}
	key := c.Args[2]
	s := existingStream(c, key)
	if s == nil {
		return
	}
	w := c.W
	switch sub {
	case "consumers":
		g := s.Group(c.Args[3])
		if g == nil {
			noGroupErr(c, "No such consumer group '%s' for key name '%s'", c.Args[3], key)
			return
		}
		w.Array(g.NumConsumers())
		g.Consumers(func(cons *stream.Consumer) bool {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(cons.Name)
			w.BulkString("pending")
			w.Int(int64(cons.PEL.Len()))
			w.BulkString("idle")
			w.Int(max(streamNow(c)-cons.SeenTime, 0))
			return true
		})
	case "groups":
		w.Array(len(s.Groups()))
		for _, g := range s.Groups() {
			w.Map(6)
			w.BulkString("name")
			w.BulkString(g.Name)
			w.BulkString("consumers")
			w.Int(int64(g.NumConsumers()))
			w.BulkString("pending")
			w.Int(int64(g.PEL.Len()))
			w.BulkString("last-delivered-id")
			idBulk(w, g.LastID)
			w.BulkString("entries-read")
			writeEntriesRead(w, g)
			w.BulkString("lag")
			writeLag(w, s, g)
		}
	case "stream":
		xinfoStream(c, s)
	default:
		subErr()
	}
}

func xinfoStream(c *Ctx, s *Stream) {
	full := true
	count := int64(10)
	opts := c.Args[3:]
	subErr := func() {
		c.Error("ERR unknown subcommand or wrong number of arguments for '" + truncate(string(c.Args[1]), 128) + "'. Try XINFO HELP.")
	}
	if len(opts) == 0 {
		full = false
	} else {
		if len(opts) != 1 && len(opts) != 3 || !EqualFold(opts[0], "full") {
			subErr()
			return
		}
		if len(opts) == 3 {
			if !EqualFold(opts[1], "count") {
				subErr()
				return
			}
			n, ok := c.IntArg(5)
			if !ok {
				return
			}
			if n < 0 {
				n = 10
			}
			count = n
		}
	}
	w := c.W
	if full {
		w.Map(9)
	} else {
		w.Map(10)
	}
	w.BulkString("length")
	w.Int(int64(s.Length))
	w.BulkString("radix-tree-keys")
	w.Int(int64(s.Nodes()))
	w.BulkString("radix-tree-nodes")
	w.Int(int64(raxNodes(s)))
	w.BulkString("last-generated-id")
	idBulk(w, s.LastID)
	w.BulkString("max-deleted-entry-id")
	idBulk(w, s.MaxDeletedID)
	w.BulkString("entries-added")
	w.Int(int64(s.EntriesAdded))
	w.BulkString("recorded-first-entry-id")
	idBulk(w, s.FirstID)
	if !full {
		w.BulkString("groups")
		w.Int(int64(len(s.Groups())))
		w.BulkString("first-entry")
		if !s.Get1(false, func(id stream.ID, fv [][]byte) { writeEntry(w, id, fv) }) {
			w.Null()
		}
		w.BulkString("last-entry")
		if !s.Get1(true, func(id stream.ID, fv [][]byte) { writeEntry(w, id, fv) }) {
			w.Null()
		}
		return
	}
	w.BulkString("entries")
	replyRange(c, w, s, stream.ID{}, stream.Max, count, false, nil, nil, false, nil, nil)
	w.BulkString("groups")
	w.Array(len(s.Groups()))
	for _, g := range s.Groups() {
		w.Map(7)
		w.BulkString("name")
		w.BulkString(g.Name)
		w.BulkString("last-delivered-id")
		idBulk(w, g.LastID)
		w.BulkString("entries-read")
		writeEntriesRead(w, g)
		w.BulkString("lag")
		writeLag(w, s, g)
		w.BulkString("pel-count")
		w.Int(int64(g.PEL.Len()))
		w.BulkString("pending")
		sub := *w.Sub()
		n := int64(0)
		g.PEL.Scan(func(nack *stream.NACK) bool {
			if count != 0 && n >= count {
				return false
			}
			sub.Array(4)
			idBulk(&sub, nack.ID)
			sub.BulkString(nack.Consumer.Name)
			sub.Int(nack.DeliveryTime)
			sub.Int(nack.DeliveryCount)
			n++
			return true
		})
		w.Array(int(n))
		w.Append(&sub)
		w.BulkString("consumers")
		w.Array(g.NumConsumers())
		g.Consumers(func(cons *stream.Consumer) bool {
			w.Map(4)
			w.BulkString("name")
			w.BulkString(cons.Name)
			w.BulkString("seen-time")
			w.Int(cons.SeenTime)
			w.BulkString("pel-count")
			w.Int(int64(cons.PEL.Len()))
			w.BulkString("pending")
			sub := *w.Sub()
			n := int64(0)
			cons.PEL.Scan(func(nack *stream.NACK) bool {
				if count != 0 && n >= count {
					return false
				}
				sub.Array(3)
				idBulk(&sub, nack.ID)
				sub.Int(nack.DeliveryTime)
				sub.Int(nack.DeliveryCount)
				n++
				return true
			})
			w.Array(int(n))
			w.Append(&sub)
			return true
		})
	}
}

// raxNodes is the number of nodes of a radix tree holding the stream's
// node keys (16-byte big-endian IDs), as Redis's rax builds it: one node
// per point where keys diverge, plus the leaves, plus compressed runs.
func raxNodes(s *Stream) int {
	var keys [][16]byte
	s.EachNode(func(m stream.ID, _ []byte) {
		var k [16]byte
		for i := 0; i < 8; i++ {
			k[i] = byte(m.Ms >> (56 - 8*i))
			k[8+i] = byte(m.Seq >> (56 - 8*i))
		}
		keys = append(keys, k)
	})
	if len(keys) == 0 {
		return 1
	}
	return raxCount(keys, 0)
}

// raxCount counts the nodes of the subtree for the sorted keys sharing
// their first depth bytes, rooted at a node at depth.
func raxCount(keys [][16]byte, depth int) int {
	if depth == 16 {
		return 1 // the leaf (key node without children)
	}
	if len(keys) == 1 {
		// A compressed node holding the rest, then the leaf.
		return 2
	}
	// Common prefix from depth.
	p := depth
	for p < 16 {
		b := keys[0][p]
		same := true
		for _, k := range keys[1:] {
			if k[p] != b {
				same = false
				break
			}
		}
		if !same {
			break
		}
		p++
	}
	n := 0
	if p > depth {
		n++ // the compressed node for the shared run
	}
	// The branching node at p, then each child.
	n++
	for i := 0; i < len(keys); {
		j := i
		for j < len(keys) && keys[j][p] == keys[i][p] {
			j++
		}
		if p+1 == 16 {
			n++
		} else if j-i == 1 {
			n += 2 - 1 + 1 // compressed rest + leaf
		} else {
			n += raxCount(keys[i:j], p+1)
		}
		i = j
	}
	return n
}

// ---- RDB ----

func toRDBID(id stream.ID) rdb.StreamID   { return rdb.StreamID{Ms: id.Ms, Seq: id.Seq} }
func fromRDBID(id rdb.StreamID) stream.ID { return stream.ID{Ms: id.Ms, Seq: id.Seq} }

// streamToRDB serializes a stream: its nodes as they are.
func streamToRDB(s *Stream) *rdb.Value {
	rs := &rdb.Stream{Length: s.Length, LastID: toRDBID(s.LastID), FirstID: toRDBID(s.FirstID),
		MaxDeletedID: toRDBID(s.MaxDeletedID), EntriesAdded: s.EntriesAdded}
	s.EachNode(func(m stream.ID, lp []byte) {
		rs.Nodes = append(rs.Nodes, rdb.StreamNode{Master: toRDBID(m), LP: append([]byte(nil), lp...)})
	})
	for _, g := range s.Groups() {
		rg := rdb.StreamGroup{Name: []byte(g.Name), LastID: toRDBID(g.LastID), EntriesRead: g.EntriesRead}
		g.PEL.Scan(func(n *stream.NACK) bool {
			rg.PEL = append(rg.PEL, rdb.StreamNACK{ID: toRDBID(n.ID), DeliveryTime: n.DeliveryTime, DeliveryCount: uint64(n.DeliveryCount)})
			return true
		})
		g.Consumers(func(c *stream.Consumer) bool {
			rc := rdb.StreamConsumer{Name: []byte(c.Name), SeenTime: c.SeenTime}
			c.PEL.Scan(func(n *stream.NACK) bool {
				rc.PEL = append(rc.PEL, toRDBID(n.ID))
				return true
			})
			rg.Consumers = append(rg.Consumers, rc)
			return true
		})
		rs.Groups = append(rs.Groups, rg)
	}
	return &rdb.Value{Kind: rdb.KindStream, Stream: rs}
}

// streamFromRDB builds a stream from a decoded (validated) one; a
// version-1 stream gets the metadata Redis derives for it.
func streamFromRDB(e *Engine, rs *rdb.Stream) *Stream {
	s := e.newStream()
	for _, n := range rs.Nodes {
		s.AddNode(fromRDBID(n.Master), n.LP)
	}
	s.Length = rs.Length
	s.LastID = fromRDBID(rs.LastID)
	if rs.V1 {
		s.EntriesAdded = s.Length
		s.FirstID, _ = s.FirstValid()
	} else {
		s.FirstID = fromRDBID(rs.FirstID)
		s.MaxDeletedID = fromRDBID(rs.MaxDeletedID)
		s.EntriesAdded = rs.EntriesAdded
	}
	for _, rg := range rs.Groups {
		last := fromRDBID(rg.LastID)
		er := rg.EntriesRead
		if rs.V1 {
			er = estimateDistance(s, last)
		}
		g := s.CreateGroup(rg.Name, last, er)
		nacks := make(map[rdb.StreamID]*stream.NACK, len(rg.PEL))
		for _, n := range rg.PEL {
			nk := &stream.NACK{ID: fromRDBID(n.ID), DeliveryTime: n.DeliveryTime, DeliveryCount: int64(n.DeliveryCount)}
			nacks[n.ID] = nk
			g.PEL.Set(nk)
		}
		for _, rc := range rg.Consumers {
			c := g.CreateConsumer(rc.Name, rc.SeenTime)
			for _, id := range rc.PEL {
				nk := nacks[id]
				nk.Consumer = c
				c.PEL.Set(nk)
			}
		}
	}
	return s
}

// signalDeletedStreams marks ready the keys of db that hold a stream
// some client blocks on and that will no longer hold one once db is
// emptied (replaced nil) or swapped with replaced: blocked XREADGROUP
// clients then get UNBLOCKED, as Redis's scanDatabaseForDeletedStreams.
func (e *Engine) signalDeletedStreams(db, replaced *DB) {
	for bk := range e.blocked {
		if bk.db != db.ID || e.readySet[bk] {
			continue
		}
		v, ok := db.keys.Get(bk.key)
		if _, was := v.o.(*Stream); !ok || !was {
			continue
		}
		if replaced != nil {
			if w, ok := replaced.keys.Get(bk.key); ok {
				if _, is := w.o.(*Stream); is {
					continue
				}
			}
		}
		e.readySet[bk] = true
		e.readyKeys = append(e.readyKeys, bk)
	}
}
