package search_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ordo-db/ordo"
)

// embedded is a session on an in-process database with persistence.
type embedded struct {
	t    *testing.T
	db   *ordo.DB
	conn *ordo.Conn
}

func openEmbedded(t *testing.T, dir string) *embedded {
	db, err := ordo.Open(dir, &ordo.Options{Sync: ordo.SyncAlways})
	if err != nil {
		t.Fatal(err)
	}
	return &embedded{t, db, db.Conn()}
}

func (e *embedded) close() {
	e.conn.Close()
	if err := e.db.Close(); err != nil {
		e.t.Fatal(err)
	}
}

func (e *embedded) want(want string, args ...any) {
	e.t.Helper()
	v, err := e.conn.Do(context.Background(), args...).Result()
	got := fmt.Sprint(v)
	if err != nil {
		got = "!" + err.Error()
	}
	if got != want {
		e.t.Errorf("%v\n got %s\nwant %s", args, got, want)
	}
}

// waitRewrite polls INFO until no AOF rewrite runs (bounded).
func (e *embedded) waitRewrite() {
	for range 10000 {
		info, _ := e.conn.Do(context.Background(), "INFO", "persistence").Text()
		if !strings.Contains(info, "aof_rewrite_in_progress:1") {
			return
		}
		e.conn.Do(context.Background(), "DEBUG", "SLEEP", "0.001")
	}
	e.t.Fatal("AOF rewrite did not finish")
}

// TestDurableDefinitions: FT.CREATE and FT.DROPINDEX survive a restart
// (AOF replay), a BGREWRITEAOF and a SAVE; the contents are rebuilt.
func TestDurableDefinitions(t *testing.T) {
	dir := t.TempDir()
	c := openEmbedded(t, dir)
	c.want("OK", "FT.CREATE", "idx", "PREFIX", "1", "d:", "SCHEMA", "n", "NUMERIC", "t", "TAG")
	c.want("2", "HSET", "d:1", "n", "9007199254740993", "t", "a")
	c.want("2", "HSET", "d:2", "n", "9007199254740992", "t", "b")
	c.want("OK", "FT.CREATE", "gone", "SCHEMA", "x", "TEXT")
	c.want("OK", "FT.DROPINDEX", "gone")
	c.want("OK", "SELECT", "2")
	c.want("OK", "FT.CREATE", "in2", "SCHEMA", "x", "TEXT")
	c.want("1", "HSET", "h", "x", "hello")
	c.close()

	c = openEmbedded(t, dir)
	c.want("[idx in2]", "FT._LIST")
	c.want("[1 d:1]", "FT.SEARCH", "idx", "@n:[9007199254740993 9007199254740993]", "NOCONTENT")
	c.want("[1 h]", "FT.SEARCH", "in2", "hello", "NOCONTENT")
	c.want("OK", "SELECT", "2")
	c.want("1", "HSET", "h2", "x", "world")
	c.want("[1 h2]", "FT.SEARCH", "in2", "world", "NOCONTENT")
	c.want("OK", "SELECT", "0")
	c.want("Background append only file rewriting started", "BGREWRITEAOF")
	c.waitRewrite()
	c.want("2", "HSET", "d:3", "n", "(1", "t", "c") // not a number: not indexed
	c.want("OK", "FT.DROPINDEX", "in2")
	// A copy of the files as they are now (a crash: no closing snapshot)
	// holds the rewritten base and the log after it.
	crash := t.TempDir()
	if err := os.CopyFS(crash, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	c.close()
	cc := openEmbedded(t, crash)
	cc.want("[idx]", "FT._LIST")
	cc.want("[2 d:2 d:1]", "FT.SEARCH", "idx", "*", "NOCONTENT", "SORTBY", "n")
	cc.close()

	c = openEmbedded(t, dir)
	c.want("[idx]", "FT._LIST")
	c.want("[2 d:2 d:1]", "FT.SEARCH", "idx", "*", "NOCONTENT", "SORTBY", "n")
	c.want("OK", "FT.CREATE", "after", "SCHEMA", "t", "TAG")
	c.want("OK", "SAVE")
	c.close()

	c = openEmbedded(t, dir)
	c.want("[after idx]", "FT._LIST")
	c.want("[1 d:1]", "FT.SEARCH", "idx", "@t:{a}", "NOCONTENT")
	c.want("[1 d:3]", "FT.SEARCH", "after", "@t:{c}", "NOCONTENT")
	c.want("OK", "DEBUG", "RELOAD")
	c.want("[after idx]", "FT._LIST")
	c.want("[1 d:1]", "FT.SEARCH", "idx", "@t:{a}", "NOCONTENT")
	c.want("[1 d:3]", "FT.SEARCH", "after", "@t:{c}", "NOCONTENT")
	c.close()
}

func TestModuleListAndCommandInfo(t *testing.T) {
	c, _ := newClient(t)
	c.want("[[name search ver 20610 path  args []]]", "MODULE", "LIST")
	if got := c.do("COMMAND", "INFO", "ft.search"); !strings.HasPrefix(got, "[[ft.search -3 [readonly]") {
		t.Fatalf("COMMAND INFO ft.search: %s", got)
	}
	if got := c.do("COMMAND", "DOCS", "ft.create"); strings.HasPrefix(got, "!") {
		t.Fatalf("COMMAND DOCS ft.create: %s", got)
	}
}

// TestManyPending: more changed keys than the queue holds between two
// searches (the queue is applied early, from KeyChanged) stay exact.
func TestManyPending(t *testing.T) {
	ctx := context.Background()
	db, err := ordo.Open("", &ordo.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Do(ctx, "FT.CREATE", "i", "SCHEMA", "n", "NUMERIC").Err(); err != nil {
		t.Fatal(err)
	}
	const n = 10000
	for i := range n {
		db.Do(ctx, "HSET", fmt.Sprint("k", i), "n", i)
	}
	for i := 0; i < n; i += 3 {
		db.Do(ctx, "HINCRBY", fmt.Sprint("k", i), "n", n)
	}
	got, err := db.Do(ctx, "FT.SEARCH", "i", fmt.Sprintf("@n:[%d +inf]", n), "LIMIT", "0", "0").Slice()
	if err != nil || got[0] != int64((n+2)/3) {
		t.Fatalf("got %v %v, want %d", got, err, (n+2)/3)
	}
	got, _ = db.Do(ctx, "FT.SEARCH", "i", "*", "LIMIT", "0", "0").Slice()
	if got[0] != int64(n) {
		t.Fatalf("got %v, want %d", got, n)
	}
}

// TestDurableJSONAndText: an ON JSON index with TEXT (stems), GEO and
// PHONETIC fields is rebuilt after a restart and after BGREWRITEAOF.
func TestDurableJSONAndText(t *testing.T) {
	dir := t.TempDir()
	c := openEmbedded(t, dir)
	c.want("OK", "JSON.SET", "p:1", "$", `{"name":"Running Shoes","loc":"2.35,48.85","who":"Smith"}`)
	c.want("OK", "FT.CREATE", "j", "ON", "JSON", "PREFIX", "1", "p:", "LANGUAGE", "english", "SCHEMA",
		"$.name", "AS", "name", "TEXT", "WEIGHT", "2", "$.loc", "AS", "loc", "GEO", "$.who", "AS", "who", "TEXT", "PHONETIC", "dm:en")
	c.want("OK", "JSON.SET", "p:2", "$", `{"name":"runner","loc":"-0.12,51.5","who":"Schmidt"}`)
	c.close()
	for range 2 {
		c = openEmbedded(t, dir)
		c.want("[1 p:1]", "FT.SEARCH", "j", "run @loc:[2.3 48.8 20 km]", "NOCONTENT")
		c.want("[2 p:1 p:2]", "FT.SEARCH", "j", "@who:smith", "NOCONTENT", "SORTBY", "name")
		c.want("Background append only file rewriting started", "BGREWRITEAOF")
		c.waitRewrite()
		c.close()
	}
}
