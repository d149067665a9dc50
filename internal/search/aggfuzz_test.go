package search_test

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAggregateRandomArgs: random FT.AGGREGATE, FT.CURSOR, FT.SUG*,
// FT.EXPLAIN and FT.PROFILE argument lists built from the commands'
// vocabulary never break the server: each gets a reply (an error or
// not) and the connection stays usable.
func TestAggregateRandomArgs(t *testing.T) {
	c := aggFixture(t)
	r := rand.New(rand.NewPCG(1, 2))
	vocab := []string{"LOAD", "GROUPBY", "REDUCE", "SORTBY", "APPLY", "FILTER", "LIMIT", "AS", "WITHCURSOR",
		"COUNT", "MAXIDLE", "PARAMS", "DIALECT", "MAX", "ASC", "DESC", "BY", "*", "0", "1", "2", "3", "-1",
		"@brand", "@price", "@title", "@nosuch", "brand", "count", "sum", "avg", "tolist", "first_value",
		"quantile", "0.5", "random_sample", "stddev", "count_distinct", "min", "max", "@price * 2",
		"upper(@brand)", "split(@title)", "@price > 10", "(", ")", "'", "x", "VERBATIM", "TIMEOUT", "1e400", "",
		"substr(@title, -1, 100)", "9223372036854775807", "4294967296", "PREFIX", "SCHEMA", "TEXT", "TAG", "NUMERIC", "RETURN", "STOPWORDS", "NOCONTENT", "SORTABLE", "ADD", "format('%s', @price)", "timefmt(@price)", "@brand == 'sony'"}
	for i := range 3000 {
		var args []string
		switch i % 6 {
		case 0, 1, 2:
			args = []string{"FT.AGGREGATE", "games", []string{"*", "mario", "@price:[1 50]", "-x"}[r.IntN(4)]}
		case 3:
			args = []string{"FT.CURSOR", []string{"READ", "DEL", "GC", "X"}[r.IntN(4)], "games"}
		case 4:
			args = []string{[]string{"FT.SUGADD", "FT.SUGGET", "FT.SUGDEL", "FT.SUGLEN", "FT.SEARCH", "FT.CREATE", "FT.ALTER"}[r.IntN(7)], "sug"}
			if args[0] == "FT.SEARCH" || args[0] == "FT.ALTER" {
				args[1] = "games"
			}
		default:
			args = []string{[]string{"FT.EXPLAIN", "FT.PROFILE", "FT.EXPLAINCLI"}[r.IntN(3)], "games"}
		}
		for range r.IntN(12) {
			args = append(args, vocab[r.IntN(len(vocab))])
		}
		if v := c.c.Do(args...); strings.HasPrefix(v.Str, "ERR internal error") {
			t.Fatalf("%q: %s", args, v.Str)
		}
	}
	c.want("PONG", "PING")
	c.want("[4 [brand  c 1] [brand microsoft c 2] [brand nintendo c 2] [brand sony c 1]]",
		"FT.AGGREGATE", "games", "*", "GROUPBY", "1", "@brand", "REDUCE", "COUNT", "0", "AS", "c", "SORTBY", "2", "@brand", "ASC")
}
