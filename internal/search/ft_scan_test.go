package search_test

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFTBackgroundScan: FT.CREATE over a large keyspace returns before
// every key is indexed; the rest is indexed between commands, and a key
// written during the walk is indexed as it is now.
func TestFTBackgroundScan(t *testing.T) {
	c, _ := newClient(t)
	const n = 30000
	c.do("EVAL", "for i=1,"+strconv.Itoa(n)+" do redis.call('HSET','d:'..i,'t','w'..(i%10),'n',i) end", "0")
	// FT.CREATE and FT.INFO in one transaction: no slice runs between them.
	c.do("MULTI")
	c.do("FT.CREATE", "idx", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT", "n", "NUMERIC")
	c.do("FT.INFO", "idx")
	c.do("HSET", "d:1", "t", "changed") // written during the walk
	c.do("HSET", "d:new", "t", "w3", "n", "0")
	c.do("DEL", "d:2")
	v := c.c.Do("EXEC")
	info := flat(v.Elems[1])
	if !strings.Contains(info, "indexing 1 percent_indexed 0.") {
		t.Fatalf("FT.INFO right after FT.CREATE: %s", info)
	}
	// The answers never include a stale value, even mid-walk.
	c.want("[1 d:1]", "FT.SEARCH", "idx", "changed", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "idx", "@n:[2 2]", "NOCONTENT")
	done := false
	for range 2000 {
		info = c.do("FT.INFO", "idx")
		if strings.Contains(info, "indexing 0 percent_indexed 1 ") {
			done = true
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !done {
		t.Fatalf("indexing did not finish: %s", info)
	}
	c.want("[3001]", "FT.SEARCH", "idx", "w3", "LIMIT", "0", "0") // 3000 + d:new
	c.want("[2999]", "FT.SEARCH", "idx", "w1", "LIMIT", "0", "0") // d:1 changed
	c.want("[2999]", "FT.SEARCH", "idx", "w2", "LIMIT", "0", "0") // d:2 deleted
	c.want("["+strconv.Itoa(n)+"]", "FT.SEARCH", "idx", "*", "LIMIT", "0", "0")
	// SKIPINITIALSCAN indexes only what is written afterwards.
	c.want("OK", "FT.CREATE", "skip", "PREFIX", "1", "d:", "SKIPINITIALSCAN", "SCHEMA", "t", "TEXT")
	c.want("[0]", "FT.SEARCH", "skip", "w3", "LIMIT", "0", "0")
	c.do("HSET", "d:5", "t", "w3")
	c.want("[1 d:5]", "FT.SEARCH", "skip", "w3", "NOCONTENT")
}
