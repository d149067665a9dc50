package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestTagOrders: after random upserts, deletions, TTLs and renumbering,
// every tag's order on each SORTABLE NUMERIC field (tagnum.go) holds
// exactly the documents with the tag and a value, in (value, id) order;
// and "tags AND ranges SORTBY field" answered through the orders gives the
// general path's total and page (ascending and descending, offsets,
// other leaves, multi-valued tags, exact decimals beyond doubles).
func TestTagOrders(t *testing.T) {
	e, h, do := newSearchEngine(t)
	do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	do("FT.CREATE", "idx", "PREFIX", "1", "d:", "SCHEMA", "n", "NUMERIC", "SORTABLE", "m", "NUMERIC", "SORTABLE",
		"t", "TAG", "u", "TAG", "x", "NUMERIC")
	e.Lock()
	ix := h.get(e).lookupIndex("idx")
	ix.tn.min, ix.holes = 8, 16 // orders from 8 documents; renumber often
	e.Unlock()
	r := rand.New(rand.NewPCG(5, 6))
	nums := []string{"1", "2", "3", "-1", "0.5", "9007199254740993", "9007199254740992", "7"}
	const future = int64(4102444800000)
	renumbered, prevTop := false, uint32(0)
	for step := range 6000 {
		key := "d:" + strconv.Itoa(r.IntN(800))
		switch r.IntN(12) {
		case 0, 1:
			do("DEL", key)
		case 2:
			do("PEXPIREAT", key, strconv.FormatInt(future+int64(r.IntN(3)), 10))
		default:
			args := []string{"HSET", key, "t", []string{"a", "b", "a,b", "c"}[r.IntN(4)], "u", []string{"p", "q"}[r.IntN(2)]}
			if r.IntN(6) > 0 {
				args = append(args, "n", nums[r.IntN(len(nums))])
			}
			if r.IntN(2) > 0 {
				args = append(args, "m", strconv.Itoa(r.IntN(30)))
			}
			if r.IntN(2) > 0 {
				args = append(args, "x", strconv.Itoa(r.IntN(5)))
			}
			do(args...)
		}
		if step%200 != 199 {
			continue
		}
		e.Lock()
		s := h.get(e)
		renumbered = renumbered || ix.top < prevTop
		prevTop = ix.top
		checkOrders(t, ix)
		for range 30 {
			sf := []string{"n", "m"}[r.IntN(2)]
			rng := &node{op: opNum, field: sf}
			rng.lo, _ = parseNumber(nums[r.IntN(len(nums))])
			rng.hi, _ = parseNumber([]string{"+inf", "9007199254740992", "3", "20"}[r.IntN(4)])
			rng.loEx, rng.hiEx = r.IntN(3) == 0, r.IntN(3) == 0
			tf := []string{"t", "u"}[r.IntN(2)]
			tag := &node{op: opTag, field: tf, tags: []tagTerm{{val: []string{"a", "b", "c", "p", "q"}[r.IntN(5)]}}}
			if r.IntN(5) == 0 {
				tag.tags = append(tag.tags, tag.tags[0])
			}
			q := &node{op: opAnd, kids: []*node{tag, rng}}
			if r.IntN(3) == 0 {
				x := &node{op: opNum, field: "x"}
				x.lo, _ = parseNumber("1")
				x.hi, _ = parseNumber("3")
				q.kids = append(q.kids, x)
			}
			r.Shuffle(len(q.kids), func(i, j int) { q.kids[i], q.kids[j] = q.kids[j], q.kids[i] })
			o := searchOpts{off: r.IntN(4) * r.IntN(3), num: r.IntN(15), slop: -1, lang: ix.lang, scorer: scorerTFIDF,
				sortBy: []sortKey{{name: sf, desc: r.IntN(2) == 0}}, withSortKey: r.IntN(3) == 0}
			now := future + int64(r.IntN(4))
			g := o
			g.general = true
			wt, wp, _ := s.runSearch(e, ix, q, &g, now)
			gt, gp, _ := s.runSearch(e, ix, q, &o, now)
			if want, got := fmt.Sprint(wt, pageOf(wp, &o)), fmt.Sprint(gt, pageOf(gp, &o)); want != got {
				e.Unlock()
				t.Fatalf("step %d %s %+v:\n got %s\nwant %s", step, nodeText(q), o, got, want)
			}
		}
		e.Unlock()
	}
	if !renumbered || len(ix.tn.m) == 0 {
		t.Fatalf("renumbered %v, %d orders", renumbered, len(ix.tn.m))
	}
}

func nodeText(n *node) string {
	s := fmt.Sprint(n.op, " ", n.field, " ", n.tags, " ", []byte(n.lo), " ", []byte(n.hi))
	for _, k := range n.kids {
		s += " (" + nodeText(k) + ")"
	}
	return s
}

// checkOrders: each order holds exactly its tag's documents with a value.
func checkOrders(t *testing.T, ix *index) {
	t.Helper()
	for k, o := range ix.tn.m {
		var got, want []string
		for _, c := range o.ch {
			for j, id := range c.ids {
				got = append(got, fmt.Sprint(c.f[j], " ", id))
			}
		}
		type pair struct {
			f  float64
			id uint32
		}
		var ps []pair
		ix.tags[k.tf].posts[k.tid].each(func(id uint32, _ struct{}) {
			if f, _, ok := ix.nums[k.nf].value(id); ok {
				ps = append(ps, pair{f, id})
			}
		})
		slices.SortFunc(ps, func(a, b pair) int {
			if numLess(a.f, a.id, b.f, b.id) {
				return -1
			}
			return 1
		})
		for _, p := range ps {
			want = append(want, fmt.Sprint(p.f, " ", p.id))
		}
		if !slices.Equal(got, want) || o.n != len(want) {
			t.Fatalf("order %+v (n %d):\n got %v\nwant %v", k, o.n, got, want)
		}
		for i, c := range o.ch {
			if len(c.f) == 0 || o.maxF[i] != c.f[len(c.f)-1] || o.maxID[i] != c.ids[len(c.ids)-1] {
				t.Fatalf("order %+v: chunk %d bounds", k, i)
			}
		}
	}
	// Every tag big enough has its orders.
	for _, tf := range []int{2, 3} {
		for tid := range ix.tags[tf].posts {
			if ix.tags[tf].posts[tid].n >= ix.tn.min*2 {
				for _, nf := range ix.tn.num {
					if ix.tn.m[tnKey{uint32(tf), uint32(tid), uint32(nf)}] == nil && hasValues(ix, tf, uint32(tid), nf) {
						t.Fatalf("tag %d/%d has no order on %d", tf, tid, nf)
					}
				}
			}
		}
	}
}

func hasValues(ix *index, tf int, tid uint32, nf int) bool {
	has := false
	ix.tags[tf].posts[tid].each(func(id uint32, _ struct{}) {
		_, _, ok := ix.nums[nf].value(id)
		has = has || ok
	})
	return has
}
