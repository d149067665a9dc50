package search_test

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestDurableExt: aliases, FT.ALTER'd schemas, synonyms, dictionaries
// and suggestions survive a restart (AOF replay), an AOF rewrite (crash
// after it: the rewritten base plus the log) and a SAVE.
func TestDurableExt(t *testing.T) {
	dir := t.TempDir()
	c := openEmbedded(t, dir)
	c.want("OK", "FT.CREATE", "idx", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT")
	c.want("2", "HSET", "d:1", "t", "a boy", "n", "9007199254740993")
	c.want("OK", "FT.ALTER", "idx", "SCHEMA", "ADD", "n", "NUMERIC", "SORTABLE")
	c.want("OK", "FT.ALIASADD", "al", "idx")
	c.want("OK", "FT.SYNUPDATE", "idx", "g1", "boy", "child")
	c.want("2", "FT.DICTADD", "dict", "x", "y")
	c.want("1", "FT.SUGADD", "ac", "hello", "2", "PAYLOAD", "p")
	c.want("1", "FT.SUGADD", "ac", "hello", "1", "INCR")
	c.want("OK", "SELECT", "3")
	c.want("1", "FT.SUGADD", "ac3", "three", "1")
	c.want("OK", "SELECT", "0")
	check := func(c *embedded) {
		c.t.Helper()
		c.want("[1 d:1]", "FT.SEARCH", "al", "@n:[9007199254740993 9007199254740993]", "NOCONTENT")
		c.want("[1 d:1]", "FT.SEARCH", "al", "child", "NOCONTENT")
		if got := c.conn.Do(context.Background(), "FT.DICTDUMP", "dict").String(); !strings.Contains(got, "[x y") {
			c.t.Errorf("FT.DICTDUMP: %s", got)
		}
		c.want("[hello 1.732050895690918 p]", "FT.SUGGET", "ac", "hel", "WITHSCORES", "WITHPAYLOADS")
		c.want("0", "FT.SUGLEN", "ac3")
		c.want("OK", "SELECT", "3")
		c.want("1", "FT.SUGLEN", "ac3")
		c.want("OK", "SELECT", "0")
	}
	check(c)
	c.close()

	c = openEmbedded(t, dir)
	check(c)
	c.want("Background append only file rewriting started", "BGREWRITEAOF")
	c.waitRewrite()
	c.want("1", "FT.DICTADD", "dict", "z")
	crash := t.TempDir()
	if err := os.CopyFS(crash, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	c.close()
	cc := openEmbedded(t, crash)
	check(cc)
	cc.want("[x y z]", "FT.DICTDUMP", "dict")
	cc.close()

	c = openEmbedded(t, dir)
	check(c)
	c.want("OK", "SAVE")
	c.close()
	c = openEmbedded(t, dir)
	check(c)
	c.close()
}
