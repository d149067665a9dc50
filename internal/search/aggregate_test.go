package search_test

import (
	"testing"
)

// aggFixture is a small catalogue: brand (sortable TEXT), price
// (NUMERIC SORTABLE), categories (TAG), title (TEXT).
func aggFixture(t *testing.T) *client {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "games", "ON", "HASH", "PREFIX", "1", "g:", "SCHEMA",
		"title", "TEXT", "SORTABLE", "brand", "TEXT", "NOSTEM", "SORTABLE",
		"price", "NUMERIC", "SORTABLE", "categories", "TAG")
	docs := [][]string{
		{"g:1", "title", "Mario Kart", "brand", "Nintendo", "price", "49.99", "categories", "racing,family"},
		{"g:2", "title", "Zelda", "brand", "Nintendo", "price", "59.5", "categories", "adventure"},
		{"g:3", "title", "Halo", "brand", "Microsoft", "price", "39", "categories", "shooter"},
		{"g:4", "title", "Forza", "brand", "Microsoft", "price", "45", "categories", "racing"},
		{"g:5", "title", "Gran Turismo", "brand", "Sony", "price", "30", "categories", "racing"},
		{"g:6", "title", "Mystery box", "brand", "", "price", "1"},
	}
	for _, d := range docs {
		c.do(append([]string{"HSET"}, d...)...)
	}
	return c
}

// TestAggregateGroupBy ports test_aggregate.py's testGroupBy/testMinMax/
// testAvg/testCountDistinct shapes: rows as property-value arrays, the
// total is the number of groups, numbers print as RediSearch prints
// them (integers in full, others with %.12g), sortable TEXT is
// normalized (lower-cased) when read implicitly.
func TestAggregateGroupBy(t *testing.T) {
	c := aggFixture(t)
	c.want("[4 [brand microsoft count 2] [brand nintendo count 2] [brand  count 1] [brand sony count 1]]",
		"FT.AGGREGATE", "games", "*", "GROUPBY", "1", "@brand", "REDUCE", "count", "0", "AS", "count",
		"SORTBY", "4", "@count", "DESC", "@brand", "ASC")
	c.want("[4 [brand nintendo __generated_aliasmaxprice 59.5] [brand microsoft __generated_aliasmaxprice 45]]",
		"FT.AGGREGATE", "games", "*", "GROUPBY", "1", "@brand", "REDUCE", "MAX", "1", "@price",
		"SORTBY", "2", "@__generated_aliasmaxprice", "DESC", "MAX", "2")
	c.want("[4 [brand nintendo avg 54.745 sum 109.49 min 49.99 n 2]]",
		"FT.AGGREGATE", "games", "*", "GROUPBY", "1", "@brand",
		"REDUCE", "AVG", "1", "@price", "AS", "avg", "REDUCE", "SUM", "1", "@price", "AS", "sum",
		"REDUCE", "MIN", "1", "@price", "AS", "min", "REDUCE", "COUNT_DISTINCT", "1", "@title", "AS", "n",
		"SORTBY", "2", "@avg", "DESC", "LIMIT", "0", "1")
	c.want("[1 [racing 3]]", "FT.AGGREGATE", "games", "@categories:{racing}",
		"GROUPBY", "0", "REDUCE", "COUNT", "0", "AS", "racing")
	// TOLIST over a TAG (kept as stored), grouped by a computed value.
	c.want("[2 [cheap 0 titles [Halo Gran Turismo Mystery box]] [cheap 1 titles [Mario Kart Zelda Forza]]]",
		"FT.AGGREGATE", "games", "*", "LOAD", "1", "@title", "APPLY", "@price > 40", "AS", "cheap",
		"GROUPBY", "1", "@cheap", "REDUCE", "TOLIST", "1", "@title", "AS", "titles", "SORTBY", "2", "@cheap", "ASC")
	// AVG divides by the group's rows, with a number or not (sum.c).
	c.do("HSET", "g:8", "title", "Unpriced", "brand", "Sony")
	c.want("[1 [brand sony avg 15 n 2]]", "FT.AGGREGATE", "games", "@brand:sony", "GROUPBY", "1", "@brand",
		"REDUCE", "AVG", "1", "@price", "AS", "avg", "REDUCE", "COUNT", "0", "AS", "n")
	c.do("DEL", "g:8")
	// testFirstValue: sortable TEXT read implicitly is lower-cased.
	c.want("[2 [brand nintendo top_item zelda top_price 59.5 bottom_item mario kart bottom_price 49.99] [brand microsoft top_item forza top_price 45 bottom_item halo bottom_price 39]]",
		"FT.AGGREGATE", "games", "@brand:(nintendo|microsoft)", "GROUPBY", "1", "@brand",
		"REDUCE", "FIRST_VALUE", "4", "@title", "BY", "@price", "DESC", "AS", "top_item",
		"REDUCE", "FIRST_VALUE", "4", "@price", "BY", "@price", "DESC", "AS", "top_price",
		"REDUCE", "FIRST_VALUE", "4", "@title", "BY", "@price", "ASC", "AS", "bottom_item",
		"REDUCE", "FIRST_VALUE", "4", "@price", "BY", "@price", "ASC", "AS", "bottom_price",
		"SORTBY", "2", "@top_price", "DESC", "MAX", "5")
	// FIRST_VALUE BY, QUANTILE, STDDEV.
	c.want("[1 [top Zelda q50 45 sd0 20.4301578555 sd 20.4]]",
		"FT.AGGREGATE", "games", "*", "LOAD", "1", "@title", "GROUPBY", "0",
		"REDUCE", "FIRST_VALUE", "4", "@title", "BY", "@price", "DESC", "AS", "top",
		"REDUCE", "QUANTILE", "2", "@price", "0.5", "AS", "q50",
		"REDUCE", "STDDEV", "1", "@price", "AS", "sd0",
		"APPLY", "floor(@sd0*10)/10", "AS", "sd")
}

func TestAggregateApplyFilter(t *testing.T) {
	c := aggFixture(t)
	// testTimeFunctions/testSplit: without SORTBY or GROUPBY the total
	// counts the documents read, and LIMIT stops the reading.
	c.want("[1 [dt 1517417144 timefmt 2018-01-31T16:45:44Z day 1517356800 hour 1517414400 minute 1517417100 month 1514764800 dayofweek 3 dayofmonth 31 dayofyear 30 year 2018]]",
		"FT.AGGREGATE", "games", "*", "APPLY", "1517417144", "AS", "dt", "APPLY", "timefmt(@dt)", "AS", "timefmt",
		"APPLY", "day(@dt)", "AS", "day", "APPLY", "hour(@dt)", "AS", "hour", "APPLY", "minute(@dt)", "AS", "minute",
		"APPLY", "month(@dt)", "AS", "month", "APPLY", "dayofweek(@dt)", "AS", "dayofweek",
		"APPLY", "dayofmonth(@dt)", "AS", "dayofmonth", "APPLY", "dayofyear(@dt)", "AS", "dayofyear",
		"APPLY", "year(@dt)", "AS", "year", "LIMIT", "0", "1")
	c.want("[1 [strs [hello world foo bar] strs2 [hello world foo,,,bar] strs3 [hello world,  foo,,,bar,] strs4 [hello world foo bar] strs5 [hello world foo bar] empty []]]",
		"FT.AGGREGATE", "games", "*", "APPLY", `split("hello world,  foo,,,bar,", ",", " ")`, "AS", "strs",
		"APPLY", `split("hello world,  foo,,,bar,", " ", ",")`, "AS", "strs2",
		"APPLY", `split("hello world,  foo,,,bar,", "", "")`, "AS", "strs3",
		"APPLY", `split("hello world,  foo,,,bar,")`, "AS", "strs4",
		"APPLY", `split("hello world,  foo,,,bar,",",")`, "AS", "strs5",
		"APPLY", `split("")`, "AS", "empty", "LIMIT", "0", "1")
	c.want("[5 [price 30]]", "FT.AGGREGATE", "games", "*", "LOAD", "1", "@price", "FILTER", "@price < 40", "LIMIT", "1", "1")
	c.want("[6 [price 1 double 2] [price 30 double 60] [price 39 double 78]]",
		"FT.AGGREGATE", "games", "*", "APPLY", "@price * 2", "AS", "double",
		"SORTBY", "2", "@price", "ASC", "LIMIT", "0", "3")
	c.want("[1 [title Zelda u ZELDA l 5 s eld]]",
		"FT.AGGREGATE", "games", "zelda", "LOAD", "1", "@title",
		"APPLY", "upper(@title)", "AS", "u", "APPLY", "strlen(@title)", "AS", "l",
		"APPLY", "substr(@title, 1, 3)", "AS", "s")
	c.want("[6 [brand nintendo price 59.5] [brand nintendo price 49.99]]",
		"FT.AGGREGATE", "games", "*", "FILTER", "@brand == 'nintendo' && @price > 10",
		"SORTBY", "2", "@price", "DESC")
	c.want("[1 [x 2022-11-24T00:00:00Z y 2022 f a-1]]",
		"FT.AGGREGATE", "games", "@price:[1 1]", "APPLY", "timefmt(1669248000)", "AS", "x",
		"APPLY", "year(1669248000)", "AS", "y", "APPLY", "format(\"%s-%s\", \"a\", 1)", "AS", "f")
	c.want("[1 [price 1 e 1 m 1 p 8 r 3]]",
		"FT.AGGREGATE", "games", "@price:[1 1]", "APPLY", "exists(@price)", "AS", "e",
		"APPLY", "7 % 3", "AS", "m", "APPLY", "2^3", "AS", "p",
		"APPLY", "sqrt(9)", "AS", "r")
	c.want("[2 [title Halo m [halo]] [title Mario Kart m [mario kart]]]", "FT.AGGREGATE", "games", "halo | (mario kart)",
		"LOAD", "1", "@title", "APPLY", "matched_terms()", "AS", "m", "SORTBY", "2", "@title", "ASC")
	c.want("!Property `nosuch` not loaded in pipeline", "FT.AGGREGATE", "games", "*", "APPLY", "@nosuch + 1", "AS", "x")
	c.want("!Unknown function name 'nofn'", "FT.AGGREGATE", "games", "*", "APPLY", "nofn(1)", "AS", "x")
	c.want("!Property `nosuch` not loaded nor in schema", "FT.AGGREGATE", "games", "*", "SORTBY", "1", "@nosuch")
	c.want("!No such property `nosuch`", "FT.AGGREGATE", "games", "*", "GROUPBY", "1", "@nosuch")
	c.want("!Bad arguments for GROUPBY: Unknown property `brand`. Did you mean `@brand`?",
		"FT.AGGREGATE", "games", "*", "GROUPBY", "1", "brand")
	c.want("!No such reducer: nosuch", "FT.AGGREGATE", "games", "*", "GROUPBY", "1", "@brand", "REDUCE", "nosuch", "0")
	c.want("!Multiple SORTBY steps are not allowed. Sort multiple fields in a single step",
		"FT.AGGREGATE", "games", "*", "SORTBY", "1", "@price", "SORTBY", "1", "@price")
	c.want("!nosuch: no such index", "FT.AGGREGATE", "nosuch", "*")
	c.want("!Unknown argument `BOGUS` at position 0 for <main>", "FT.AGGREGATE", "games", "*", "BOGUS")
}

// TestAggregateLoad: LOAD reads hash fields as stored (numbers keep
// their exact text), LOAD * reads all; without LOAD a row is empty; LIMIT
// 0 0 returns only the count; SORTBY alone returns the first 10.
func TestAggregateLoad(t *testing.T) {
	c := aggFixture(t)
	c.do("HSET", "g:7", "title", "Big", "brand", "X", "price", "9007199254740993", "extra", "e")
	c.want("[1 [title Big price 9007199254740993]]", "FT.AGGREGATE", "games", "big", "LOAD", "2", "@title", "price")
	c.want("[1 [title Big brand X price 9007199254740993 extra e]]", "FT.AGGREGATE", "games", "big", "LOAD", "*")
	c.want("[1 [t Big]]", "FT.AGGREGATE", "games", "big", "LOAD", "3", "@title", "AS", "t")
	c.want("[1 [__key g:7]]", "FT.AGGREGATE", "games", "big", "LOAD", "1", "@__key")
	c.want("[1 []]", "FT.AGGREGATE", "games", "big")
	c.want("[7]", "FT.AGGREGATE", "games", "*", "LIMIT", "0", "0")
	for range 10 {
		c.do("HSET", "g:x"+c.do("INCR", "ctr"), "price", "100")
	}
	got := c.do("FT.AGGREGATE", "games", "*", "SORTBY", "2", "@price", "DESC")
	if n := len(splitTop(got)); n != 11 {
		t.Errorf("SORTBY without LIMIT: %d elements, want 1+10: %s", n, got)
	}
}

// splitTop splits a flat reply "[a [b] c]" into its top-level elements.
func splitTop(s string) []string {
	s = s[1 : len(s)-1]
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ' ':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// TestCursors ports test_cursors.py: chunks of COUNT rows, the id 0 when
// a read finds fewer rows than asked, FT.CURSOR DEL, unknown ids.
func TestCursors(t *testing.T) {
	c := aggFixture(t)
	got := c.c.Do("FT.AGGREGATE", "games", "*", "LOAD", "1", "@title", "SORTBY", "2", "@price", "ASC", "MAX", "6", "WITHCURSOR", "COUNT", "4")
	if len(got.Elems) != 2 || flat(got.Elems[0]) != "[6 [title Mystery box price 1] [title Gran Turismo price 30] [title Halo price 39] [title Forza price 45]]" {
		t.Fatalf("first chunk: %s", flat(got))
	}
	cid := flat(got.Elems[1])
	if cid == "0" {
		t.Fatal("cursor id 0 with rows left")
	}
	c.want("[[0 [title Mario Kart price 49.99] [title Zelda price 59.5]] 0]", "FT.CURSOR", "READ", "games", cid)
	c.want("!Cursor not found", "FT.CURSOR", "READ", "games", cid)
	// Exactly the remaining rows: the cursor stays open, the next read is empty.
	got = c.c.Do("FT.AGGREGATE", "games", "*", "GROUPBY", "1", "@brand", "SORTBY", "2", "@brand", "ASC", "WITHCURSOR", "COUNT", "2")
	cid = flat(got.Elems[1])
	if flat(got.Elems[0]) != "[4 [brand ] [brand microsoft]]" {
		t.Fatalf("groups chunk: %s", flat(got))
	}
	c.want("[[0 [brand nintendo] [brand sony]] "+cid+"]", "FT.CURSOR", "READ", "games", cid)
	c.want("[[0] 0]", "FT.CURSOR", "READ", "games", cid)
	got = c.c.Do("FT.AGGREGATE", "games", "*", "WITHCURSOR", "COUNT", "1")
	cid = flat(got.Elems[1])
	c.want("OK", "FT.CURSOR", "DEL", "games", cid)
	c.want("!Cursor does not exist", "FT.CURSOR", "DEL", "games", cid)
	c.want("!Bad cursor ID", "FT.CURSOR", "READ", "games", "abc")
	c.want("!Bad arguments for COUNT: Value is outside acceptable bounds", "FT.AGGREGATE", "games", "*", "WITHCURSOR", "COUNT", "0")
	// MAXIDLE: an idle cursor expires (checked lazily, against the clock).
	got = c.c.Do("FT.AGGREGATE", "games", "*", "WITHCURSOR", "COUNT", "1", "MAXIDLE", "1")
	cid = flat(got.Elems[1])
	c.do("DEBUG", "SLEEP", "0.01")
	c.want("!Cursor not found", "FT.CURSOR", "READ", "games", cid)
}

// TestReadmeAggregate is the README's FT.AGGREGATE example.
func TestReadmeAggregate(t *testing.T) {
	c, _ := newClient(t)
	c.do("HSET", "user:1", "name", "Ada Lovelace", "age", "36", "city", "London")
	c.do("HSET", "user:2", "name", "Alan Turing", "age", "41", "city", "Wilmslow|London")
	c.want("OK", "FT.CREATE", "users", "ON", "HASH", "PREFIX", "1", "user:", "SCHEMA", "name", "TEXT", "SORTABLE",
		"age", "NUMERIC", "SORTABLE", "city", "TAG", "SEPARATOR", "|")
	c.want("[2 [city London n 1 avg 36] [city Wilmslow|London n 1 avg 41]]", "FT.AGGREGATE", "users", "*",
		"GROUPBY", "1", "@city", "REDUCE", "COUNT", "0", "AS", "n", "REDUCE", "AVG", "1", "@age", "AS", "avg",
		"SORTBY", "2", "@n", "DESC")
}

// TestAggregateExpressions: the function library's edge cases, as
// RediSearch's string.c, math.c and date.c compute them.
func TestAggregateExpressions(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "i", "SCHEMA", "s", "TEXT", "n", "NUMERIC")
	c.do("HSET", "a", "s", "banana", "n", "-2.5")
	for _, tc := range [][2]string{
		{"contains(@s, 'ana')", "2"}, // overlapping occurrences count
		{"contains(@s, '')", "7"},
		{"startswith(@s, 'ban')", "1"},
		{"substr(@s, -3, 2)", "an"},
		{"substr(@s, 2, -1)", "nan"},
		{"upper(@s)", "BANANA"},
		{"strlen(@s)", "6"},
		{"abs(@n)", "2.5"},
		{"floor(@n)", "-3"},
		{"ceil(@n)", "-2"},
		{"@n * 2", "-5"},
		{"1 / 3", "0.333333333333"},
		{"10 % 4", "2"},
		{"2 ^ 0.5", "1.41421356237"},
		{"log2(8)", "3"},
		{"!@n", "0"},
		{"!@n == 1", "1"},     // !(@n == 1)
		{"!@n && 0", "0"},     // (!@n) && 0
		{"1 + !@n == 2", "2"}, // 1 + !(@n == 2)
		{"@s == 'banana' || @n > 0", "1"},
		{"NULL", "nil"},
		{"to_number('12')", "12"},
		{"dayofweek(0)", "4"},
		{"monthofyear(1669248000)", "10"},
		{"dayofyear(1669248000)", "327"},
		{"hour(1669251600 + 59)", "1669251600"},
		{"parsetime('2022-11-24', '%Y-%m-%d')", "1669248000"},
		{"timefmt(0, '%Y/%m/%d %H:%M')", "1970/01/01 00:00"},
		{"split('a, b,c')", "[a b c]"},
	} {
		c.want("[1 [s banana n -2.5 x "+tc[1]+"]]", "FT.AGGREGATE", "i", "*", "LOAD", "2", "@s", "@n", "APPLY", tc[0], "AS", "x")
	}
	c.want("!Invalid arguments for function 'substr'", "FT.AGGREGATE", "i", "*", "APPLY", "substr('a')", "AS", "x")
	c.want("!Syntax error at offset 4 near ')'", "FT.AGGREGATE", "i", "*", "APPLY", "1 + )", "AS", "x")
	c.want("!Unknown symbol 'foo'", "FT.AGGREGATE", "i", "*", "APPLY", "foo", "AS", "x")
}

// TestCursorCapacity ports test_cursors.py's testCursors/testCapacities:
// default read size 1000, COUNT 10 over 100 rows takes 11 reads, and an
// index holds at most 128 open cursors.
func TestCursorCapacity(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "idx1", "PREFIX", "1", "idx1", "SCHEMA", "f1", "TEXT")
	c.want("OK", "FT.CREATE", "idx2", "PREFIX", "1", "idx2", "SCHEMA", "f1", "TEXT")
	for i := range 100 {
		c.do("HSET", "idx1_doc"+itoa(i), "f1", "hello world")
	}
	got := c.c.Do("FT.AGGREGATE", "idx1", "*", "LOAD", "1", "@f1", "WITHCURSOR")
	if len(got.Elems[0].Elems) != 101 || got.Elems[1].Int != 0 {
		t.Fatalf("default read size: %d rows, cursor %d", len(got.Elems[0].Elems)-1, got.Elems[1].Int)
	}
	reads := 1
	got = c.c.Do("FT.AGGREGATE", "idx1", "*", "LOAD", "1", "@f1", "WITHCURSOR", "COUNT", "10")
	for cid := got.Elems[1].Int; cid != 0; reads++ {
		got = c.c.Do("FT.CURSOR", "READ", "idx1", itoa(int(cid)))
		cid = got.Elems[1].Int
	}
	if reads != 11 {
		t.Errorf("COUNT 10 over 100 rows: %d reads, want 11", reads)
	}
	var ids []string
	for range 128 {
		got = c.c.Do("FT.AGGREGATE", "idx1", "*", "WITHCURSOR", "COUNT", "10")
		ids = append(ids, flat(got.Elems[1]))
	}
	c.want("!Too many cursors allocated for index", "FT.AGGREGATE", "idx1", "*", "WITHCURSOR", "COUNT", "10")
	c.want("[[0] 0]", "FT.AGGREGATE", "idx2", "*", "WITHCURSOR", "COUNT", "10")
	for _, id := range ids {
		c.want("OK", "FT.CURSOR", "DEL", "idx1", id)
	}
	if got := c.do("FT.AGGREGATE", "idx1", "*", "WITHCURSOR", "COUNT", "10"); got[:2] != "[[" {
		t.Errorf("after DEL: %s", got)
	}
	c.want("OK", "FT.DROPINDEX", "idx1") // its cursors go with it
}
