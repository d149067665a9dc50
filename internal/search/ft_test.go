package search_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// flat renders a reply compactly: arrays as [a b c], errors as !msg.
func flat(v resp.Value) string {
	switch v.Kind {
	case resp.KindArray, resp.KindSet, resp.KindMap, resp.KindPush:
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = flat(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case resp.KindInt:
		return strconv.FormatInt(v.Int, 10)
	case resp.KindError:
		return "!" + v.Str
	case resp.KindNull:
		return "nil"
	}
	return v.Str
}

type client struct {
	t *testing.T
	c *redistest.Conn
}

func newClient(t *testing.T, settings ...string) (*client, *redistest.Ordo) {
	o := redistest.StartOrdo(t, settings...)
	return &client{t, redistest.Dial(t, o.Addr)}, o
}

func (c *client) do(args ...string) string {
	c.t.Helper()
	return flat(c.c.Do(args...))
}

func (c *client) want(want string, args ...string) {
	c.t.Helper()
	if got := c.do(args...); got != want {
		c.t.Errorf("%q\n got %s\nwant %s", args, got, want)
	}
}

func TestFTBasics(t *testing.T) {
	c, _ := newClient(t)
	c.do("HSET", "doc:1", "title", "Hello World", "n", "10", "tags", "red,Blue")
	c.do("HSET", "doc:2", "title", "hello there", "n", "25500.12346", "tags", "green")
	c.do("HSET", "other:3", "title", "hello", "n", "1")
	c.want("OK", "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc:", "SCORE", "1.0", "SCHEMA",
		"title", "TEXT", "SORTABLE", "n", "NUMERIC", "SORTABLE", "tags", "TAG")
	c.want("!Index already exists", "FT.CREATE", "idx", "SCHEMA", "t", "TEXT")
	c.want("[idx]", "FT._LIST")
	c.want("[2 doc:1 doc:2]", "FT.SEARCH", "idx", "*", "NOCONTENT")
	c.want("[1 doc:1 [title Hello World n 10 tags red,Blue]]", "FT.SEARCH", "idx", "world")
	c.want("[1 doc:1]", "FT.SEARCH", "idx", "@tags:{blue}", "NOCONTENT")
	c.want("[2 doc:2 doc:1]", "FT.SEARCH", "idx", "@tags:{blue | GREEN}", "NOCONTENT", "SORTBY", "n", "DESC")
	c.want("[1 doc:2]", "FT.SEARCH", "idx", "@n:[(10 +inf]", "NOCONTENT")
	c.want("[1 doc:2]", "FT.SEARCH", "idx", "@n:[25500.12346 25500.12346]", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "idx", "@n:[25500.123461 +inf]", "NOCONTENT")
	c.want("[1 doc:2]", "FT.SEARCH", "idx", "hello -world", "NOCONTENT")
	c.want("[2 doc:1 doc:2]", "FT.SEARCH", "idx", "hello -there", "NOCONTENT") // a stop word; equal scores: indexing order
	c.want("[1 doc:2 [x 25500.12346]]", "FT.SEARCH", "idx", "@n:[$lo $hi]", "PARAMS", "4", "lo", "(10", "hi", "inf", "RETURN", "3", "n", "AS", "x", "DIALECT", "2")
	c.want("[2]", "FT.SEARCH", "idx", "hello", "LIMIT", "0", "0")
	// Never stale: writes, deletes and expiry are seen at once.
	c.do("HSET", "doc:3", "title", "brand new", "n", "-5")
	c.want("[1 doc:3]", "FT.SEARCH", "idx", "@n:[-inf 0]", "NOCONTENT")
	c.do("HSET", "doc:3", "n", "abc") // not a number: the hash is not indexed
	c.want("[0]", "FT.SEARCH", "idx", "@n:[-inf 0]", "NOCONTENT")
	c.want("[0]", "FT.SEARCH", "idx", "brand", "NOCONTENT")
	c.do("DEL", "doc:1")
	c.want("[1 doc:2]", "FT.SEARCH", "idx", "hello", "NOCONTENT")
	c.do("RENAME", "doc:2", "doc:9")
	c.want("[1 doc:9]", "FT.SEARCH", "idx", "hello", "NOCONTENT")
	c.do("RENAME", "doc:9", "zzz")
	c.want("[0]", "FT.SEARCH", "idx", "hello", "NOCONTENT")
	c.do("HSET", "doc:4", "title", "gone soon")
	c.do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	c.do("PEXPIREAT", "doc:4", "1") // in the past, not yet reaped
	c.want("[0]", "FT.SEARCH", "idx", "gone", "NOCONTENT")
	c.want("!Unknown Index name", "FT.INFO", "nosuch")
	c.want("!nosuch: no such index", "FT.SEARCH", "nosuch", "*")
	c.want("OK", "FT.DROPINDEX", "idx", "DD")
	c.want("[]", "FT._LIST")
	c.want("1", "EXISTS", "doc:3") // not indexed (n is not a number), so not deleted
	c.want("1", "EXISTS", "zzz")
}

// TestReadmeExample is the README's redis-cli session.
func TestReadmeExample(t *testing.T) {
	c, _ := newClient(t)
	c.want("3", "HSET", "user:1", "name", "Ada Lovelace", "age", "36", "city", "London")
	c.want("3", "HSET", "user:2", "name", "Alan Turing", "age", "41", "city", "Wilmslow|London")
	c.want("OK", "FT.CREATE", "users", "ON", "HASH", "PREFIX", "1", "user:", "SCHEMA", "name", "TEXT", "SORTABLE",
		"age", "NUMERIC", "SORTABLE", "city", "TAG", "SEPARATOR", "|")
	c.want("[1 user:2 [name Alan Turing]]", "FT.SEARCH", "users", "@city:{london} @age:[(40 +inf]", "RETURN", "1", "name")
	c.want("[2 user:2 user:1]", "FT.SEARCH", "users", "ada | alan", "NOCONTENT", "SORTBY", "age", "DESC", "LIMIT", "0", "10")
}

// TestMultiAndScript: changes inside MULTI/EXEC and Lua are seen by a
// search in the same transaction or script.
func TestMultiAndScript(t *testing.T) {
	c, _ := newClient(t)
	c.want("OK", "FT.CREATE", "i", "SCHEMA", "n", "NUMERIC")
	c.want("OK", "MULTI")
	c.want("QUEUED", "HSET", "a", "n", "1")
	c.want("QUEUED", "FT.SEARCH", "i", "@n:[1 1]", "NOCONTENT")
	c.want("QUEUED", "DEL", "a")
	c.want("QUEUED", "FT.SEARCH", "i", "*", "NOCONTENT")
	c.want("[1 [1 a] 1 [0]]", "EXEC")
	c.want("[1 b]", "EVAL", "redis.call('HSET', 'b', 'n', '2') return redis.call('FT.SEARCH', 'i', '@n:[2 2]', 'NOCONTENT')", "0")
	c.want("[1 b]", "FT.SEARCH", "i", "*", "NOCONTENT")
}
