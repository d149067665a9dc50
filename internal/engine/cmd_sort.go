package engine

// SORT and SORT_RO, as Redis 7.0's sort.c: BY (a pattern, or a constant
// for no sorting), GET (several, "#" for the element), LIMIT, ASC/DESC,
// ALPHA and STORE, on lists, sets and sorted sets.
//
// Redis's output order is reproduced exactly where Redis's is
// deterministic: a numeric sort breaks ties by the elements' bytes (a
// total order); an ALPHA sort compares as strcoll in the C locale
// (strcmp, up to a NUL byte), or by bytes when storing; the sort is
// glibc's qsort (a stable merge sort: msort), except for BY with a LIMIT
// that narrows the range, where Redis uses its own partial quicksort
// (pqsort, ported in cmd_geo.go), so that equal weights come out in the
// same order. Where Redis starts from a hash table's order (sets, and
// sorted sets unless BY is a constant), equal ALPHA weights come out in
// Ordo's order. Redis 7.0's strtod leaves errno set by an earlier
// out-of-range conversion; Ordo does not reproduce that stale state.

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unsafe"
)

// ErrSortScore is SORT's reply when a weight is not a number.
const ErrSortScore = "ERR One or more scores can't be converted into double"

// sortStoreBatch is the number of elements per RPUSH when SORT ... STORE
// logs its result.
const sortStoreBatch = 1024

func registerSort(t *Table) {
	cmd := t.register("sort", func(c *Ctx) { sortGeneric(c, false) })
	// Redis's key specs leave the STORE key "unknown": COMMAND GETKEYS
	// falls back to sortGetKeys, ported as sortKeys.
	cmd.specs = nil
	cmd.Keys = sortKeys
	cmd.KeyFlags = func(_ [][]byte, i int) []string {
		if i == 1 {
			return []string{"RO", "access"}
		}
		return []string{"OW", "update"}
	}
	t.register("sort_ro", func(c *Ctx) { sortGeneric(c, true) })
}

// sortKeys is Redis's sortGetKeys: the sorted key, and the key of the
// last STORE option, found skipping the arguments of LIMIT, GET and BY.
func sortKeys(args [][]byte) []int {
	idx := []int{1}
	store := 0
	for i := 2; i < len(args); i++ {
		switch {
		case EqualFold(args[i], "limit"):
			i += 2
		case EqualFold(args[i], "get"), EqualFold(args[i], "by"):
			i++
		case EqualFold(args[i], "store") && i+1 < len(args):
			store = i + 1
		}
	}
	if store > 0 {
		idx = append(idx, store)
	}
	return idx
}

// sortItem is one element of the vector to sort, with its numeric
// weight. It holds no pointer (its string is a span of the command's
// sortBuf), so the vector is not scanned by the collector nor written
// with write barriers; an ALPHA sort BY weights keeps them apart
// (sortOpts.cmps), so that an item is 24 bytes, not 56 as it was with
// two strings.
type sortItem struct {
	obj   span
	score float64
}

// span is a string in a sortBuf: its bytes [off, off+n); n is -1 for
// none (a BY weight not found).
type span struct{ off, n int }

// sortBuf holds copies of SORT's elements and ALPHA weights, one buffer
// for all. Bytes once appended are never written again, so a string of
// them (str) stays valid as the buffer grows.
type sortBuf struct{ b []byte }

func (a *sortBuf) add(b []byte) span {
	a.b = append(a.b, b...)
	return span{len(a.b) - len(b), len(b)}
}

func (a *sortBuf) addString(s string) span {
	a.b = append(a.b, s...)
	return span{len(a.b) - len(s), len(s)}
}

// str is the string of sp.
func (a *sortBuf) str(sp span) string {
	if sp.n <= 0 {
		return ""
	}
	return unsafe.String(&a.b[sp.off], sp.n)
}

// sortOpts are the parsed options and what the comparison needs.
type sortOpts struct {
	desc, alpha, byPattern, store bool
	buf                           *sortBuf   // the items' strings
	items                         []sortItem // the vector
	cmps                          []span     // ALPHA weights by BY, by item
}

// compare is Redis's sortCompare of items i and j.
func (o *sortOpts) compare(i, j int32) int {
	a, b := &o.items[i], &o.items[j]
	var cmp int
	switch {
	case !o.alpha:
		switch {
		case a.score > b.score:
			cmp = 1
		case a.score < b.score:
			cmp = -1
		default:
			cmp = strings.Compare(o.buf.str(a.obj), o.buf.str(b.obj))
		}
	case o.byPattern:
		ca, cb := o.cmps[i], o.cmps[j]
		switch {
		case ca.n < 0 || cb.n < 0:
			switch {
			case ca.n < 0 && cb.n < 0:
				cmp = 0
			case ca.n < 0:
				cmp = -1
			default:
				cmp = 1
			}
		case o.store:
			cmp = strings.Compare(o.buf.str(ca), o.buf.str(cb))
		default:
			cmp = strcoll(o.buf.str(ca), o.buf.str(cb))
		}
	case o.store:
		cmp = strings.Compare(o.buf.str(a.obj), o.buf.str(b.obj))
	default:
		cmp = strcoll(o.buf.str(a.obj), o.buf.str(b.obj))
	}
	if o.desc {
		return -cmp
	}
	return cmp
}

// cstr is s up to its first NUL byte, as C string functions see it.
func cstr(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// strcoll compares as strcoll does in the C and C.UTF-8 locales (Redis
// sets LC_COLLATE from the environment): strcmp, up to the first NUL.
func strcoll(a, b string) int { return strings.Compare(cstr(a), cstr(b)) }

func sortGeneric(c *Ctx, readonly bool) {
	var (
		o                     sortOpts
		dontsort              bool
		limitStart, limitCnt  int64 = 0, -1
		sortby, storekey      []byte
		hasBy, hasStore       bool
		gets                  [][]byte
		args                  = c.Args
		sortval               Typed
		list                  *List
		set                   *Set
		zs                    *ZSet
		vectorlen, start, end int
	)
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		switch {
		case c.ArgIs(j, "asc"):
			o.desc = false
		case c.ArgIs(j, "desc"):
			o.desc = true
		case c.ArgIs(j, "alpha"):
			o.alpha = true
		case c.ArgIs(j, "limit") && left >= 2:
			var ok bool
			if limitStart, ok = c.IntArg(j + 1); !ok {
				return
			}
			if limitCnt, ok = c.IntArg(j + 2); !ok {
				return
			}
			j += 2
		case !readonly && c.ArgIs(j, "store") && left >= 1:
			storekey, hasStore = args[j+1], true
			j++
		case c.ArgIs(j, "by") && left >= 1:
			sortby, hasBy = args[j+1], true
			// A BY without '*' is a constant: nothing to sort.
			if strings.IndexByte(cstr(view(sortby)), '*') < 0 {
				dontsort = true
			}
			j++
		case c.ArgIs(j, "get") && left >= 1:
			gets = append(gets, args[j+1])
			j++
		default:
			c.Error(ErrSyntax)
			return
		}
	}

	if v, found := c.Lookup(args[1]); found {
		switch x := v.o.(type) {
		case *List:
			list, sortval = x, x
		case *Set:
			set, sortval = x, x
		case *ZSet:
			zs, sortval = x, x
		default:
			c.Error(ErrWrongType)
			return
		}
	} else {
		list = NewList()
		sortval = list
	}

	// A set's order is its hash table's: when the result is stored or a
	// script sorts, Redis sorts it (ALPHA) so that it is reproducible.
	if dontsort && set != nil && (hasStore || c.InScript) {
		dontsort, o.alpha, hasBy = false, true, false
	}
	// Redis converts a small sorted set to its skiplist encoding.
	if zs != nil && !zs.s.Indexed() {
		zs.s.BuildIndex(c.E.acct)
		c.recount(args[1])
	}

	vectorlen = sortval.Len()
	// LIMIT, clamped as Redis does.
	start = int(min(max(limitStart, 0), int64(vectorlen)))
	limitCnt = min(max(limitCnt, -1), int64(vectorlen))
	if limitCnt < 0 {
		end = vectorlen - 1
	} else {
		end = start + int(limitCnt) - 1
	}
	if start >= vectorlen {
		start, end = vectorlen-1, vectorlen-2
	}
	if end >= vectorlen {
		end = vectorlen - 1
	}
	// Lists and sorted sets not sorted load only the range they return.
	if list != nil || zs != nil {
		if dontsort && (start != 0 || end != vectorlen-1) {
			vectorlen = end - start + 1
		}
	}

	vector := make([]sortItem, 0, max(vectorlen, 0))
	// Copies of the elements (and ALPHA weights): room for short ones.
	elems := &sortBuf{b: make([]byte, 0, min(max(vectorlen, 0)*8, 64<<10))}
	o.buf = elems
	switch {
	case list != nil && dontsort:
		// The list's own order (reversed by DESC), from start.
		if end >= start {
			n := list.Len()
			if o.desc {
				for i := n - start - 1; i >= 0 && len(vector) < vectorlen; i-- {
					vector = append(vector, sortItem{obj: elems.add(list.BytesAt(i))})
				}
			} else {
				for i := start; i < n && len(vector) < vectorlen; i++ {
					vector = append(vector, sortItem{obj: elems.add(list.BytesAt(i))})
				}
			}
			end -= start
			start = 0
		}
	case list != nil:
		for i, n := 0, list.Len(); i < n; i++ {
			vector = append(vector, sortItem{obj: elems.add(list.BytesAt(i))})
		}
	case set != nil:
		set.each(func(m string) bool {
			vector = append(vector, sortItem{obj: elems.addString(m)})
			return true
		})
	case dontsort:
		// The sorted set's order (reversed by DESC), from rank start.
		rank := start
		if o.desc {
			rank = zs.Len() - start - 1
		}
		if vectorlen > 0 {
			zs.s.Range(rank, o.desc, func(m []byte, _ float64) bool {
				vector = append(vector, sortItem{obj: elems.add(m)})
				return len(vector) < vectorlen
			})
		}
		end -= start
		start = 0
	default:
		zs.s.Range(0, false, func(m []byte, _ float64) bool {
			vector = append(vector, sortItem{obj: elems.add(m)})
			return true
		})
	}

	var keyBuf []byte // sortLookup's scratch
	byPat := compileSortPattern(sortby)
	getPats := make([]sortPattern, len(gets))
	for i, g := range gets {
		getPats[i] = compileSortPattern(g)
	}
	var order []int32 // the sorted order of vector (nil: unsorted)
	convErr := false
	if !dontsort {
		if o.alpha && hasBy {
			o.cmps = make([]span, len(vector))
		}
		for j := range vector {
			it := &vector[j]
			byval := elems.str(it.obj)
			if hasBy {
				v, ok := sortLookup(c, &keyBuf, &byPat, byval)
				if !ok {
					if o.cmps != nil {
						o.cmps[j] = span{n: -1}
					}
					continue
				}
				byval = v
			}
			if o.alpha {
				if hasBy {
					o.cmps[j] = elems.addString(byval)
				}
			} else {
				var ok bool
				if it.score, ok = sortStrtod(byval); !ok {
					convErr = true
				}
			}
		}
		o.byPattern, o.store = hasBy, hasStore
		// Sort positions, not the items: moving items (strings) costs
		// the collector's write barriers.
		order = make([]int32, len(vector))
		for i := range order {
			order[i] = int32(i)
		}
		o.items = vector
		cmp := func(a, b *int32) int { return o.compare(*a, *b) }
		switch {
		case convErr: // the reply is an error: no need to sort
		case hasBy && (start != 0 || end != len(vector)-1):
			pqsort(order, 0, len(order), cmp, start, end)
		default:
			msort(order, make([]int32, len(order)), cmp)
		}
	}
	// obj is the j-th element in sorted order.
	obj := func(j int) string {
		if order != nil {
			return elems.str(vector[order[j]].obj)
		}
		return elems.str(vector[j].obj)
	}

	count := max(end-start+1, 0)
	outputlen := count
	if len(gets) > 0 {
		outputlen = len(gets) * count
	}
	switch {
	case convErr:
		c.Error(ErrSortScore)
	case !hasStore:
		c.W.Array(outputlen)
		for j := start; j <= end; j++ {
			if len(gets) == 0 {
				c.W.BulkString(obj(j))
			}
			for i := range getPats {
				if v, ok := sortLookup(c, &keyBuf, &getPats[i], obj(j)); ok {
					c.W.BulkString(v)
				} else {
					c.W.Null()
				}
			}
		}
	default:
		out := make([]string, 0, outputlen)
		for j := start; j <= end; j++ {
			if len(gets) == 0 {
				out = append(out, obj(j))
			}
			for i := range getPats {
				v, _ := sortLookup(c, &keyBuf, &getPats[i], obj(j))
				out = append(out, strings.Clone(v))
			}
		}
		sortStore(c, storekey, out)
		c.W.Int(int64(outputlen))
	}
}

// msort is a stable merge sort (glibc's qsort, which Redis calls, is one
// when memory allows), O(n log n) with tmp as scratch space of len(v).
func msort[T any](v, tmp []T, cmp func(a, b *T) int) {
	n := len(v)
	if n <= 1 {
		return
	}
	if n <= 12 {
		// Insertion sort: stable, and cheaper for short runs.
		for i := 1; i < n; i++ {
			for j := i; j > 0 && cmp(&v[j-1], &v[j]) > 0; j-- {
				v[j-1], v[j] = v[j], v[j-1]
			}
		}
		return
	}
	h := n / 2
	msort(v[:h], tmp[:h], cmp)
	msort(v[h:], tmp[h:], cmp)
	if cmp(&v[h-1], &v[h]) <= 0 {
		return // already in order
	}
	copy(tmp, v)
	a, b, k := tmp[:h], tmp[h:n], 0
	for len(a) > 0 && len(b) > 0 {
		if cmp(&a[0], &b[0]) <= 0 {
			v[k], a = a[0], a[1:]
		} else {
			v[k], b = b[0], b[1:]
		}
		k++
	}
	k += copy(v[k:], a)
	copy(v[k:], b)
}

// sortStore writes SORT's result at key (deleting key for an empty
// result) and logs the effect: the list's elements, not the sort.
func sortStore(c *Ctx, key []byte, out []string) {
	dst := append([]byte(nil), key...)
	if len(out) == 0 {
		if c.Delete(key) {
			c.Dirty(1)
			c.Propagate([]byte("DEL"), dst)
		}
		return
	}
	existed := c.Exists(key)
	l := NewList()
	for _, s := range out {
		l.PushBack(s)
	}
	c.setAs(key, ObjectValue(l), false, "sortstore")
	c.Ready(key)
	c.Dirty(len(out))

	var recs [][][]byte
	if existed {
		recs = append(recs, [][]byte{[]byte("DEL"), dst})
	}
	for len(out) > 0 {
		n := min(len(out), sortStoreBatch)
		rec := make([][]byte, 0, 2+n)
		rec = append(rec, []byte("RPUSH"), dst)
		for _, s := range out[:n] {
			rec = append(rec, []byte(s))
		}
		recs = append(recs, rec)
		out = out[n:]
	}
	// Several records are one transaction, unless the command already
	// runs inside one (EXEC, a script: NoBlock), which wraps them itself.
	wrap := len(recs) > 1 && !c.NoBlock
	if wrap {
		c.Propagate([]byte("MULTI"))
	}
	for _, r := range recs {
		c.Propagate(r...)
	}
	if wrap {
		c.Propagate([]byte("EXEC"))
	}
}

// sortPattern is a BY or GET pattern of SORT, taken apart once per
// command rather than once per element (Redis's lookupKeyByPattern parses
// it at every call).
type sortPattern struct {
	self            bool   // "#": the element itself
	none            bool   // no '*': nothing is ever found
	prefix, postfix string // the key around the '*'
	field           string // the hash field after "->", if any
}

// compileSortPattern is the parsing half of Redis's lookupKeyByPattern:
// "#" is the element itself; otherwise the first '*' of pattern is
// replaced by the element, and a "->field" after it names a hash field.
// The pattern is read up to a NUL byte, as Redis's C strings are, except
// for the field, which runs to the argument's end.
func compileSortPattern(pattern []byte) sortPattern {
	full := view(pattern)
	p := cstr(full)
	if p == "#" {
		return sortPattern{self: true}
	}
	star := strings.IndexByte(p, '*')
	if star < 0 {
		return sortPattern{none: true}
	}
	var field string
	if k := strings.Index(p[star+1:], "->"); k >= 0 {
		if f := star + 1 + k; f+2 < len(p) {
			field = full[f+2:]
		}
	}
	postfix := len(full) - star - 1
	if len(field) > 0 {
		postfix -= len(field) + 2
	}
	return sortPattern{prefix: full[:star], postfix: full[star+1 : star+1+postfix], field: field}
}

// sortLookup is the lookup half of Redis's lookupKeyByPattern for subst.
// Only a string (or a hash's field) is found. The value may alias the
// database: use it before any change.
func sortLookup(c *Ctx, buf *[]byte, pt *sortPattern, subst string) (string, bool) {
	if pt.self {
		return subst, true
	}
	if pt.none {
		return "", false
	}
	key := (*buf)[:0] // the key is only looked up: one buffer serves all
	key = append(key, pt.prefix...)
	key = append(key, subst...)
	key = append(key, pt.postfix...)
	*buf = key
	v, ok := c.Lookup(key)
	if !ok {
		return "", false
	}
	if len(pt.field) > 0 {
		h, isHash := v.o.(*Hash)
		if !isHash {
			return "", false
		}
		return h.get(pt.field)
	}
	if !v.isString() {
		return "", false
	}
	return v.s, true
}

// sortStrtod converts a weight as sortCommand does with strtod: the text
// up to a NUL byte, after leading white space, must be a number in full
// (decimal, hexadecimal, inf or infinity); NaN and values out of range
// (ERANGE: overflow, or underflow that loses precision) are errors. An
// empty string is 0.
func sortStrtod(str string) (float64, bool) {
	s := cstr(str)
	if n := len(s); n > 0 && n < 19 {
		// Fast path: a plain integer is exact in a float64's rounding.
		i := 0
		if s[0] == '-' {
			i = 1
		}
		if i < n {
			var v int64
			for ; i < n && s[i] >= '0' && s[i] <= '9'; i++ {
				v = v*10 + int64(s[i]-'0')
			}
			if i == n {
				if s[0] == '-' {
					return -float64(v), true
				}
				return float64(v), true
			}
		}
	}
	if s == "" {
		return 0, true
	}
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	if t == "" {
		return 0, false // no conversion: strtod's end is the first byte
	}
	num := t
	neg := false
	if num[0] == '+' || num[0] == '-' {
		neg = num[0] == '-'
		num = num[1:]
	}
	switch {
	case strings.EqualFold(num, "inf"), strings.EqualFold(num, "infinity"):
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case len(num) > 2 && num[0] == '0' && (num[1] == 'x' || num[1] == 'X'):
		if !hexFloatSyntax(num[2:]) {
			return 0, false
		}
		if !strings.ContainsAny(num, "pP") {
			t += "p0"
		}
	default:
		if !decFloatSyntax(num) {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	if f > -0x1p-1022 && f < 0x1p-1022 && !zeroDigits(num) {
		// Below the normal range: glibc reports ERANGE unless exact.
		b, _, err := big.ParseFloat(t, 0, 4096, big.ToNearestEven)
		if err != nil || f == 0 || b.Cmp(big.NewFloat(f)) != 0 {
			return 0, false
		}
	}
	return f, true
}

// zeroDigits reports whether the mantissa of a number has no non-zero digit.
func zeroDigits(num string) bool {
	if len(num) > 2 && num[0] == '0' && (num[1] == 'x' || num[1] == 'X') {
		num = num[2:]
		if i := strings.IndexAny(num, "pP"); i >= 0 {
			num = num[:i]
		}
	} else if i := strings.IndexAny(num, "eE"); i >= 0 {
		num = num[:i]
	}
	return strings.Trim(num, "0.") == ""
}

// decFloatSyntax reports whether s is digits [. digits] [e [sign] digits]
// with at least one mantissa digit: what strtod reads in full.
func decFloatSyntax(s string) bool {
	i, digits := 0, 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		return expSyntax(s[i+1:])
	}
	return i == len(s)
}

// hexFloatSyntax is decFloatSyntax for what follows "0x": hex digits, an
// optional point, and an optional binary exponent p [sign] digits.
func hexFloatSyntax(s string) bool {
	isHex := func(b byte) bool {
		return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
	}
	i, digits := 0, 0
	for ; i < len(s) && isHex(s[i]); i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && isHex(s[i]); i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'p' || s[i] == 'P') {
		return expSyntax(s[i+1:])
	}
	return i == len(s)
}

func expSyntax(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
