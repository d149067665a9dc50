package engine

import (
	"slices"
	"strconv"
	"unsafe"

	"github.com/ordo-db/ordo/internal/ds/dict"
	"github.com/ordo-db/ordo/internal/resp"
)

// Set commands: SADD, SREM, SISMEMBER, SMISMEMBER, SMEMBERS, SCARD,
// SRANDMEMBER, SPOP, SMOVE, SINTER, SUNION, SDIFF, SINTERSTORE,
// SUNIONSTORE, SDIFFSTORE, SINTERCARD, SSCAN.

// Set is the value of a set key, in one of Redis 7.0's two encodings:
// an intset (a sorted slice of integers, while every member is an
// integer as string2ll reads them and there are at most
// set-max-intset-entries of them; SMEMBERS then returns them sorted, as
// Redis does) or a hashtable (a Dict with no values). A set never goes
// back from hashtable to intset; but, as in Redis, the sets built by
// SINTERSTORE, SUNION, SDIFF and friends start as intsets.
type Set struct {
	sized
	is []int64              // intset form, while ht == nil
	ht *dict.Dict[struct{}] // hashtable form
}

// TypeName implements Typed.
func (s *Set) TypeName() string { return "set" }

// Encoding implements Typed.
func (s *Set) Encoding() string {
	if s.ht != nil {
		return "hashtable"
	}
	return "intset"
}

// Len implements Typed: the number of members.
func (s *Set) Len() int {
	if s.ht != nil {
		return s.ht.Len()
	}
	return len(s.is)
}

// Copy implements Typed.
func (s *Set) Copy() Typed {
	if s.ht == nil {
		return &Set{is: slices.Clone(s.is)}
	}
	return &Set{ht: s.ht.Clone()}
}

// Rewrite implements Typed: SADD commands of up to 64 members.
func (s *Set) Rewrite(key string, emit func(args [][]byte)) {
	var args [][]byte
	s.each(func(m string) bool {
		if args == nil {
			args = append(make([][]byte, 0, 2+hsRewriteBatch), []byte("SADD"), []byte(key))
		}
		args = append(args, []byte(m))
		if len(args) == 2+hsRewriteBatch {
			emit(args)
			args = nil
		}
		return true
	})
	if args != nil {
		emit(args)
	}
}

// MemoryUsage implements Typed (an estimate in bytes).
func (s *Set) MemoryUsage() int64 {
	const header = int64(unsafe.Sizeof(Set{}))
	if s.ht == nil {
		return header + 8*int64(cap(s.is))
	}
	return header + s.ht.Bytes()
}

// Each calls fn for every member, in the set's order (sorted for an
// intset), until fn returns false. The string may alias a scratch buffer:
// copy it to keep it. fn must not change the set. (Sorted-set commands
// such as ZUNIONSTORE use it to take sets as inputs, with score 1.)
func (s *Set) Each(fn func(member string) bool) { s.each(fn) }

// Contains reports whether member is in the set.
func (s *Set) Contains(member string) bool { return s.has(member) }

// EachMember is Each with strings that are safe to keep (for the sorted-
// set commands' setMembers interface).
func (s *Set) EachMember(fn func(m string) bool) {
	if s.ht != nil {
		s.ht.Each(func(k string, _ struct{}) bool { return fn(k) })
		return
	}
	for _, v := range s.is {
		if !fn(strconv.FormatInt(v, 10)) {
			return
		}
	}
}

// Has reports whether m (which may alias a request buffer) is a member.
func (s *Set) Has(m []byte) bool { return s.has(view(m)) }

func (s *Set) each(fn func(m string) bool) {
	if s.ht != nil {
		s.ht.Each(func(k string, _ struct{}) bool { return fn(k) })
		return
	}
	var buf [24]byte
	for _, v := range s.is {
		if !fn(view(strconv.AppendInt(buf[:0], v, 10))) {
			return
		}
	}
}

// members returns copies of the members, in the set's order.
func (s *Set) members() []string {
	out := make([]string, 0, s.Len())
	if s.ht != nil {
		s.ht.Each(func(k string, _ struct{}) bool {
			out = append(out, k)
			return true
		})
		return out
	}
	for _, v := range s.is {
		out = append(out, strconv.FormatInt(v, 10))
	}
	return out
}

// stNewFor returns the empty set Redis's setTypeCreate makes for a first
// member m: an intset if m is an integer, a hashtable otherwise.
func stNewFor(m string) *Set {
	if _, ok := ParseInt(hsBytes(m)); ok {
		return &Set{}
	}
	return &Set{ht: dict.New[struct{}](nil)}
}

func stMaxIntset(c *Ctx) int64 { return c.E.Config.hot().setMaxIntsetEntries }

func (s *Set) convert() {
	if s.ht != nil {
		return
	}
	d := dict.New[struct{}](nil)
	var buf [24]byte
	for _, v := range s.is {
		d.Set(view(strconv.AppendInt(buf[:0], v, 10)), struct{}{})
	}
	s.ht, s.is = d, nil
}

// add adds m (which may alias a request buffer) and reports whether it
// is new. maxIntset is set-max-intset-entries.
func (s *Set) add(m string, maxIntset int64) bool {
	if s.ht == nil {
		if v, ok := ParseInt(hsBytes(m)); ok {
			i, found := slices.BinarySearch(s.is, v)
			if found {
				return false
			}
			s.is = slices.Insert(s.is, i, v)
			if int64(len(s.is)) > maxIntset {
				s.convert()
			}
			return true
		}
		s.convert()
	}
	return s.ht.Set(m, struct{}{})
}

func (s *Set) remove(m string) bool {
	if s.ht != nil {
		_, ok := s.ht.Delete(m)
		if ok {
			s.ht.ShrinkIfNeeded()
		}
		return ok
	}
	v, ok := ParseInt(hsBytes(m))
	if !ok {
		return false
	}
	i, found := slices.BinarySearch(s.is, v)
	if !found {
		return false
	}
	s.is = slices.Delete(s.is, i, i+1)
	return true
}

func (s *Set) has(m string) bool {
	if s.ht != nil {
		_, ok := s.ht.Get(m)
		return ok
	}
	v, ok := ParseInt(hsBytes(m))
	if !ok {
		return false
	}
	_, found := slices.BinarySearch(s.is, v)
	return found
}

// random returns a random member (a string safe to keep).
func (s *Set) random() string {
	if s.ht != nil {
		k, _, _ := s.ht.Random()
		return k
	}
	return strconv.FormatInt(s.is[randInt(len(s.is))], 10)
}

// writeMembers writes every member as a bulk string.
func (s *Set) writeMembers(w *resp.Writer) {
	if s.ht != nil {
		s.ht.Each(func(k string, _ struct{}) bool {
			w.BulkString(k)
			return true
		})
		return
	}
	for _, v := range s.is {
		w.BulkInt(v)
	}
}

// ---- commands ----

func registerSets(t *Table) {
	t.register("sadd", saddCommand)
	t.register("srem", sremCommand)
	t.register("sismember", sismemberCommand)
	t.register("smismember", smismemberCommand)
	t.register("smembers", func(c *Ctx) { sinterGeneric(c, c.Args[1:2], nil, false, 0) })
	t.register("scard", scardCommand)
	t.register("srandmember", srandmemberCommand)
	t.register("spop", spopCommand)
	t.register("smove", smoveCommand)
	t.register("sinter", func(c *Ctx) { sinterGeneric(c, c.Args[1:], nil, false, 0) })
	t.register("sinterstore", func(c *Ctx) { sinterGeneric(c, c.Args[2:], c.Args[1], false, 0) })
	t.register("sintercard", sintercardCommand).Keys = GenericKeys(0, 1, 2)
	t.register("sunion", func(c *Ctx) { sunionDiffGeneric(c, c.Args[1:], nil, false) })
	t.register("sunionstore", func(c *Ctx) { sunionDiffGeneric(c, c.Args[2:], c.Args[1], false) })
	t.register("sdiff", func(c *Ctx) { sunionDiffGeneric(c, c.Args[1:], nil, true) })
	t.register("sdiffstore", func(c *Ctx) { sunionDiffGeneric(c, c.Args[2:], c.Args[1], true) })
	t.register("sscan", sscanCommand)
}

func saddCommand(c *Ctx) {
	s, ok := Get[*Set](c, c.Args[1])
	if !ok {
		return
	}
	if s == nil {
		s = stNewFor(view(c.Args[2]))
		c.Add(c.Args[1], ObjectValue(s))
	}
	max := stMaxIntset(c)
	added := 0
	for _, m := range c.Args[2:] {
		if s.add(view(m), max) {
			added++
		}
	}
	if added > 0 {
		c.Modified(c.Args[1])
		c.Dirty(added)
	}
	c.W.Int(int64(added))
}

func sremCommand(c *Ctx) {
	s, ok := Get[*Set](c, c.Args[1])
	if !ok {
		return
	}
	deleted := 0
	if s != nil {
		for _, m := range c.Args[2:] {
			if s.remove(view(m)) {
				deleted++
				if s.Len() == 0 {
					break
				}
			}
		}
	}
	if deleted > 0 {
		c.Removed(c.Args[1], deleted, s.Len())
	}
	c.W.Int(int64(deleted))
}

func sismemberCommand(c *Ctx) {
	s, ok := Get[*Set](c, c.Args[1])
	if !ok {
		return
	}
	if s != nil && s.has(view(c.Args[2])) {
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
}

func smismemberCommand(c *Ctx) {
	s, ok := Get[*Set](c, c.Args[1])
	if !ok {
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, m := range c.Args[2:] {
		if s != nil && s.has(view(m)) {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
	}
}

func scardCommand(c *Ctx) {
	s, ok := Get[*Set](c, c.Args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(s.Len()))
}

func srandmemberCommand(c *Ctx) {
	if len(c.Args) > 3 {
		c.Error(ErrSyntax)
		return
	}
	if len(c.Args) == 3 {
		srandmemberWithCount(c)
		return
	}
	s, ok := Get[*Set](c, c.Args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Null()
		return
	}
	c.W.BulkString(s.random())
}

func srandmemberWithCount(c *Ctx) {
	l, ok := hsRandCount(c, 2)
	if !ok {
		return
	}
	s, ok := Get[*Set](c, c.Args[1])
	if !ok {
		return
	}
	if s == nil || l == 0 {
		c.W.Array(0)
		return
	}
	w := c.W
	if l < 0 || l == 1 {
		count := l
		if count < 0 {
			count = -count
		}
		w.Array(int(count))
		for ; count > 0; count-- {
			if s.ht != nil {
				k, _, _ := s.ht.Random()
				w.BulkString(k)
			} else {
				w.BulkInt(s.is[randInt(len(s.is))])
			}
		}
		return
	}
	size := int64(s.Len())
	if l >= size {
		w.Array(int(size))
		s.writeMembers(w)
		return
	}
	w.Array(int(l))
	hsDistinctSample(int(size), int(l), func(all bool) ([][2]string, func() (string, string)) {
		if all {
			ms := s.members()
			pairs := make([][2]string, len(ms))
			for i, m := range ms {
				pairs[i][0] = m
			}
			return pairs, nil
		}
		return nil, func() (string, string) { return s.random(), "" }
	}, func(m, _ string) { w.BulkString(m) })
}

// stPropagateSrem logs the removal of members from key as SREM commands
// of at most 1024 members (as Redis's SPOP with a count does).
func stPropagateSrem(c *Ctx, key []byte, members []string) {
	for len(members) > 0 {
		n := min(len(members), 1024)
		args := make([][]byte, 0, 2+n)
		args = append(args, []byte("SREM"), append([]byte(nil), key...))
		for _, m := range members[:n] {
			args = append(args, []byte(m))
		}
		c.Propagate(args...)
		members = members[n:]
	}
}

func spopCommand(c *Ctx) {
	if len(c.Args) == 3 {
		spopWithCount(c)
		return
	}
	if len(c.Args) > 3 {
		c.Error(ErrSyntax)
		return
	}
	key := c.Args[1]
	s, ok := Get[*Set](c, key)
	if !ok {
		return
	}
	if s == nil {
		c.W.Null()
		return
	}
	m := s.random()
	s.remove(m)
	stPropagateSrem(c, key, []string{m})
	if s.Len() == 0 {
		c.Emptied(key)
	} else {
		c.Modified(key)
	}
	c.Dirty(1)
	c.W.BulkString(m)
}

// spopMoveStrategyMul is Redis's SPOP_MOVE_STRATEGY_MUL: when what remains
// is small compared with what is popped, the remaining members move to a
// new set instead of the popped ones being removed one by one.
const spopMoveStrategyMul = 5

func spopWithCount(c *Ctx) {
	n, ok := ParseInt(c.Args[2])
	if !ok || n < 0 {
		c.Error(ErrNotPositive)
		return
	}
	key := c.Args[1]
	s, ok := Get[*Set](c, key)
	if !ok {
		return
	}
	if s == nil || n == 0 {
		c.W.Set(0)
		return
	}
	w := c.W
	size := int64(s.Len())
	max := stMaxIntset(c)
	// Everything: replied as SUNION of the key would (so a set of
	// integers comes out sorted), logged as DEL.
	if n >= size {
		res := s
		if s.ht != nil && size <= max {
			res = &Set{}
			s.each(func(m string) bool {
				res.add(m, max)
				return true
			})
		}
		w.Set(int(size))
		res.writeMembers(w)
		c.Emptied(key)
		c.Propagate([]byte("DEL"), append([]byte(nil), key...))
		c.Dirty(int(size))
		return
	}
	count := int(n)
	remaining := int(size) - count
	popped := make([]string, 0, count)
	if int64(remaining)*spopMoveStrategyMul > n {
		// Pop count random members one by one.
		for i := 0; i < count; i++ {
			m := s.random()
			s.remove(m)
			popped = append(popped, m)
		}
	} else {
		// Keep remaining random members in a new set (whose encoding
		// is chosen afresh, as Redis does); the others are popped, in
		// the set's order.
		all := s.members()
		keep := make([]bool, len(all))
		for _, i := range randPerm(len(all))[:remaining] {
			keep[i] = true
		}
		var ns *Set
		for i, m := range all {
			if !keep[i] {
				popped = append(popped, m)
				continue
			}
			if ns == nil {
				ns = stNewFor(m)
			}
			ns.add(m, max)
		}
		c.Set(key, ObjectValue(ns), true)
	}
	w.Set(len(popped))
	for _, m := range popped {
		w.BulkString(m)
	}
	stPropagateSrem(c, key, popped)
	c.Modified(key)
	c.Dirty(count)
}

// randPerm is a random permutation of [0, n).
func randPerm(n int) []int {
	p := make([]int, n)
	for i := range p {
		j := randInt(i + 1)
		p[i] = p[j]
		p[j] = i
	}
	return p
}

func smoveCommand(c *Ctx) {
	src, dst, m := c.Args[1], c.Args[2], view(c.Args[3])
	sv, sok := c.Lookup(src)
	dv, dok := c.Lookup(dst)
	if !sok {
		c.W.Int(0)
		return
	}
	s, isSet := sv.Obj().(*Set)
	if !isSet {
		c.Error(ErrWrongType)
		return
	}
	var d *Set
	if dok {
		if d, isSet = dv.Obj().(*Set); !isSet {
			c.Error(ErrWrongType)
			return
		}
	}
	if s == d {
		if s.has(m) {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
		return
	}
	if !s.remove(m) {
		c.W.Int(0)
		return
	}
	c.SetEvent("srem")
	if s.Len() == 0 {
		c.Emptied(src)
	} else {
		c.Modified(src)
	}
	c.SetEvent("sadd")
	defer c.SetEvent("")
	if d == nil {
		d = stNewFor(m)
		c.Add(dst, ObjectValue(d))
	}
	c.Dirty(1)
	if d.add(m, stMaxIntset(c)) {
		c.Dirty(1)
		c.Modified(dst)
	}
	c.W.Int(1)
}

// stLoad returns the sets at keys (nil for missing keys) and whether one
// was missing; ok is false after a WRONGTYPE reply.
func stLoad(c *Ctx, keys [][]byte) (sets []*Set, missing, ok bool) {
	sets = make([]*Set, len(keys))
	for j, k := range keys {
		s, ok := Get[*Set](c, k)
		if !ok {
			return nil, false, false
		}
		if s == nil {
			missing = true
		}
		sets[j] = s
	}
	return sets, missing, true
}

// stStore stores res at dst (or deletes dst when res is empty), as the
// STORE forms do, and replies with the cardinality.
func stStore(c *Ctx, dst []byte, res *Set) {
	if res.Len() > 0 {
		c.SetKey(dst, ObjectValue(res))
		c.Dirty(1)
		c.W.Int(int64(res.Len()))
		return
	}
	if c.Delete(dst) {
		c.Dirty(1)
	}
	c.W.Int(0)
}

// sinterGeneric serves SINTER, SMEMBERS, SINTERSTORE (dst != nil) and
// SINTERCARD (cardOnly, with limit 0 for none).
func sinterGeneric(c *Ctx, keys [][]byte, dst []byte, cardOnly bool, limit int64) {
	sets, missing, ok := stLoad(c, keys)
	if !ok {
		return
	}
	if missing {
		switch {
		case dst != nil:
			stStore(c, dst, &Set{})
		case cardOnly:
			c.W.Int(0)
		default:
			c.W.Set(0)
		}
		return
	}
	slices.SortStableFunc(sets, func(a, b *Set) int { return a.Len() - b.Len() })
	var res *Set
	var max int64
	if dst != nil {
		res, max = &Set{}, stMaxIntset(c)
	}
	body := *c.W.Sub()
	n := int64(0)
	sets[0].each(func(m string) bool {
		for _, o := range sets[1:] {
			if o != sets[0] && !o.has(m) {
				return true
			}
		}
		n++
		switch {
		case cardOnly:
			return limit == 0 || n < limit
		case dst != nil:
			res.add(m, max)
		default:
			body.BulkString(m)
		}
		return true
	})
	switch {
	case dst != nil:
		stStore(c, dst, res)
	case cardOnly:
		c.W.Int(n)
	default:
		c.W.Set(int(n))
		c.W.Append(&body)
	}
}

func sintercardCommand(c *Ctx) {
	numkeys, ok := ParseInt(c.Args[1])
	if !ok || numkeys < 1 {
		c.Error(ErrHSNumkeysPositive)
		return
	}
	if numkeys > int64(len(c.Args)-2) {
		c.Error(ErrHSNumkeysTooMany)
		return
	}
	limit := int64(0)
	for j := 2 + int(numkeys); j < len(c.Args); j++ {
		if c.ArgIs(j, "limit") && j+1 < len(c.Args) {
			j++
			l, ok := ParseInt(c.Args[j])
			if !ok || l < 0 {
				c.Error(ErrHSLimitNegative)
				return
			}
			limit = l
		} else {
			c.Error(ErrSyntax)
			return
		}
	}
	sinterGeneric(c, c.Args[2:2+numkeys], nil, true, limit)
}

// sunionDiffGeneric serves SUNION, SDIFF and their STORE forms. As in
// Redis, the result is built as a new set starting as an intset, and the
// reply lists it in its own order.
func sunionDiffGeneric(c *Ctx, keys [][]byte, dst []byte, diff bool) {
	sets, _, ok := stLoad(c, keys)
	if !ok {
		return
	}
	max := stMaxIntset(c)
	res := &Set{}
	if diff {
		if sets[0] != nil {
			sets[0].each(func(m string) bool {
				for _, o := range sets[1:] {
					if o != nil && o.has(m) {
						return true
					}
				}
				res.add(m, max)
				return true
			})
		}
	} else {
		for _, s := range sets {
			if s == nil {
				continue
			}
			s.each(func(m string) bool {
				res.add(m, max)
				return true
			})
		}
	}
	if dst != nil {
		stStore(c, dst, res)
		return
	}
	c.W.Set(res.Len())
	res.writeMembers(c.W)
}

func sscanCommand(c *Ctx) {
	cursor, ok := parseCursor(c.Args[2])
	if !ok {
		c.Error(ErrInvalidCursor)
		return
	}
	s, ok := Get[*Set](c, c.Args[1])
	if !ok {
		return
	}
	if s == nil {
		hsEmptyScan(c.W)
		return
	}
	o, ok := parseScanOptions(c, 3, false)
	if !ok {
		return
	}
	body := *c.W.Sub()
	n := 0
	add := func(m string) {
		if o.match(m) {
			body.BulkString(m)
			n++
		}
	}
	if s.ht == nil {
		s.each(func(m string) bool {
			add(m)
			return true
		})
		cursor = 0
	} else {
		cursor = scanDict(s.ht, cursor, o.count, func(k string, _ struct{}) { add(k) })
	}
	hsScanReply(c.W, cursor, n, &body)
}
