package search_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAggregateModel: FT.AGGREGATE's GROUPBY/REDUCE/SORTBY/LIMIT (with
// FILTER and a numeric query) on random data, against a brute-force
// model computed from HGETALL of every key.
func TestAggregateModel(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runAggModel(t, seed) })
	}
}

type aggDoc struct {
	g    string // "" missing
	n    float64
	hasN bool
}

func runAggModel(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 7))
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "a", "PREFIX", "1", "k:", "SCHEMA", "g", "TAG", "n", "NUMERIC", "SORTABLE")
	groups := []string{"red", "green", "blue", "grey", "pink"}
	nums := []string{"1", "2", "3", "-4", "1.5", "10", "0", "7.25", "100"}
	docs := map[string]aggDoc{}
	for step := range 300 {
		k := fmt.Sprintf("k:%d", r.IntN(60))
		switch r.IntN(6) {
		case 0:
			c.do("DEL", k)
		default:
			args := []string{"HSET", k, "x", "1"}
			if r.IntN(6) > 0 {
				args = append(args, "g", groups[r.IntN(len(groups))])
			}
			if r.IntN(5) > 0 {
				args = append(args, "n", nums[r.IntN(len(nums))])
			}
			c.do("DEL", k)
			c.do(args...)
		}
		if step%3 != 0 {
			continue
		}
		// The model: every hash under k:.
		clear(docs)
		for _, key := range c.c.Do("KEYS", "k:*").Elems {
			v := c.c.Do("HGETALL", key.Str)
			d := aggDoc{}
			for i := 0; i+1 < len(v.Elems); i += 2 {
				switch v.Elems[i].Str {
				case "g":
					d.g = v.Elems[i+1].Str
				case "n":
					d.n, _ = strconv.ParseFloat(v.Elems[i+1].Str, 64)
					d.hasN = true
				}
			}
			docs[key.Str] = d
		}
		checkAgg(t, r, c, docs, step)
	}
}

type aggGroup struct {
	g             string
	count, nn     int
	sum, min, max float64
	distinct      map[float64]bool
}

func checkAgg(t *testing.T, r *rand.Rand, c *client, docs map[string]aggDoc, step int) {
	t.Helper()
	args := []string{"FT.AGGREGATE", "a"}
	lo := []float64{-5, 0, 2, 50}[r.IntN(4)]
	query := "*"
	if r.IntN(3) == 0 {
		query = fmt.Sprintf("@n:[%g +inf]", lo)
	}
	args = append(args, query)
	filter := math.NaN()
	if r.IntN(3) == 0 {
		filter = []float64{0, 1.5, 5}[r.IntN(3)]
		args = append(args, "FILTER", fmt.Sprintf("@n > %g", filter))
	}
	args = append(args, "GROUPBY", "1", "@g",
		"REDUCE", "COUNT", "0", "AS", "count",
		"REDUCE", "SUM", "1", "@n", "AS", "sum",
		"REDUCE", "MIN", "1", "@n", "AS", "min",
		"REDUCE", "MAX", "1", "@n", "AS", "max",
		"REDUCE", "COUNT_DISTINCT", "1", "@n", "AS", "nd")
	keys := []string{"count", "sum", "min", "max", "nd"}
	sortKey := keys[r.IntN(len(keys))]
	desc := r.IntN(2) == 0
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	off, num := r.IntN(3), 1+r.IntN(5)
	args = append(args, "SORTBY", "4", "@"+sortKey, dir, "@g", "ASC", "LIMIT", strconv.Itoa(off), strconv.Itoa(num))

	// The model.
	byG := map[string]*aggGroup{}
	var order []*aggGroup
	for _, d := range docs {
		if query != "*" && (!d.hasN || d.n < lo) {
			continue
		}
		if !math.IsNaN(filter) && (!d.hasN || !(d.n > filter)) {
			continue
		}
		g := byG[d.g]
		if g == nil {
			g = &aggGroup{g: d.g, distinct: map[float64]bool{}}
			byG[d.g] = g
			order = append(order, g)
		}
		g.count++
		if d.hasN {
			if g.nn == 0 || d.n < g.min {
				g.min = d.n
			}
			if g.nn == 0 || d.n > g.max {
				g.max = d.n
			}
			g.nn++
			g.sum += d.n
			g.distinct[d.n] = true
		}
	}
	val := func(g *aggGroup, k string) float64 {
		switch k {
		case "count":
			return float64(g.count)
		case "sum":
			return g.sum
		case "min":
			return g.min
		case "max":
			return g.max
		}
		return float64(len(g.distinct))
	}
	slices.SortFunc(order, func(a, b *aggGroup) int {
		x, y := val(a, sortKey), val(b, sortKey)
		if x != y {
			if (x < y) != desc {
				return -1
			}
			return 1
		}
		if (a.g == "") != (b.g == "") { // a missing group value sorts last
			if a.g == "" {
				return 1
			}
			return -1
		}
		return strings.Compare(a.g, b.g)
	})
	total := len(order)
	order = order[min(off, len(order)):]
	order = order[:min(num, len(order))]
	var want []string
	for _, g := range order {
		gs := g.g
		if gs == "" {
			gs = "nil"
		}
		row := []string{"g", gs}
		for _, k := range keys {
			row = append(row, k, strconv.FormatFloat(val(g, k), 'g', -1, 64))
		}
		want = append(want, "["+strings.Join(row, " ")+"]")
	}
	wantS := "[" + strings.Join(append([]string{strconv.Itoa(total)}, want...), " ") + "]"
	if got := c.do(args...); got != wantS {
		t.Fatalf("step %d: %q\n got %s\nwant %s", step, args, got, wantS)
	}
}
