package search_test

import (
	"strconv"
	"testing"
)

// TestCursorStreams: a cursor over a pipeline without GROUPBY or SORTBY
// computes its rows read by read (as RediSearch's), so a document deleted
// after FT.AGGREGATE is skipped and a changed one is read as it is at
// the READ; each read's total counts the documents it read.
func TestCursorStreams(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "d:", "SCHEMA", "n", "NUMERIC", "SORTABLE", "t", "TAG")
	for i := 1; i <= 10; i++ {
		c.do("HSET", "d:"+strconv.Itoa(i), "n", strconv.Itoa(i), "t", "x")
	}
	got := c.c.Do("FT.AGGREGATE", "idx", "*", "LOAD", "1", "@n", "APPLY", "@n*10", "AS", "m", "WITHCURSOR", "COUNT", "3")
	if flat(got.Elems[0]) != "[3 [n 1 m 10] [n 2 m 20] [n 3 m 30]]" {
		t.Fatalf("first chunk: %s", flat(got))
	}
	cid := flat(got.Elems[1])
	c.do("DEL", "d:4")
	c.do("HSET", "d:5", "n", "50")
	c.want("[[3 [n 50 m 500] [n 6 m 60] [n 7 m 70]] "+cid+"]", "FT.CURSOR", "READ", "idx", cid)
	c.do("DEL", "d:10")
	c.want("[[2 [n 8 m 80] [n 9 m 90]] 0]", "FT.CURSOR", "READ", "idx", cid)

	// FILTER and LIMIT apply as rows stream; a full LIMIT ends the cursor.
	got = c.c.Do("FT.AGGREGATE", "idx", "@t:{x}", "LOAD", "1", "@n", "FILTER", "@n%2==1", "LIMIT", "1", "2", "WITHCURSOR", "COUNT", "1")
	if flat(got.Elems[0]) != "[3 [n 3]]" {
		t.Fatalf("filtered chunk: %s", flat(got))
	}
	cid = flat(got.Elems[1])
	// (d:5 was re-indexed by its HSET: it comes last.)
	c.want("[[2 [n 7]] "+cid+"]", "FT.CURSOR", "READ", "idx", cid)
	c.want("[[0] 0]", "FT.CURSOR", "READ", "idx", cid)

	// A SORTBY sees every row at FT.AGGREGATE: the cursor holds its rows.
	got = c.c.Do("FT.AGGREGATE", "idx", "*", "LOAD", "1", "@n", "SORTBY", "2", "@n", "DESC", "WITHCURSOR", "COUNT", "2")
	if flat(got.Elems[0]) != "[8 [n 50] [n 9]]" {
		t.Fatalf("sorted chunk: %s", flat(got))
	}
	cid = flat(got.Elems[1])
	c.do("DEL", "d:8")
	c.want("[[0 [n 8] [n 7]] "+cid+"]", "FT.CURSOR", "READ", "idx", cid)
	c.want("OK", "FT.CURSOR", "DEL", "idx", cid)

	// FT.CURSOR GC: 0 with no cursor, -1 when none has expired, else how
	// many it collected.
	c.want("0", "FT.CURSOR", "GC", "idx")
	got = c.c.Do("FT.AGGREGATE", "idx", "*", "WITHCURSOR", "COUNT", "1", "MAXIDLE", "1")
	c.want("OK", "FT.CURSOR", "DEL", "idx", flat(got.Elems[1]))
	c.c.Do("FT.AGGREGATE", "idx", "*", "WITHCURSOR", "COUNT", "1", "MAXIDLE", "100000")
	c.want("-1", "FT.CURSOR", "GC", "idx", "0")
	c.c.Do("FT.AGGREGATE", "idx", "*", "WITHCURSOR", "COUNT", "1", "MAXIDLE", "1")
	c.do("DEBUG", "SLEEP", "0.01")
	c.want("1", "FT.CURSOR", "GC", "idx")
}
