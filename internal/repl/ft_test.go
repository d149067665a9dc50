package repl_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// ftWrite fills an Ordo master with FT state over hashes and JSON
// documents: two indexes, an alias, synonyms, a dictionary, suggestions,
// JSON documents with and without TTLs.
func ftWrite(t *testing.T, m *redistest.Conn) {
	t.Helper()
	do := func(args ...string) {
		t.Helper()
		if v := m.Do(args...); v.Kind == resp.KindError {
			t.Fatalf("%v: %s", args, v.Str)
		}
	}
	do("FT.CREATE", "hidx", "ON", "HASH", "PREFIX", "1", "doc:", "SCHEMA", "title", "TEXT", "n", "NUMERIC", "SORTABLE", "color", "TAG")
	do("FT.CREATE", "jidx", "ON", "JSON", "PREFIX", "1", "j:", "SKIPINITIALSCAN", "SCHEMA",
		"$.name", "AS", "name", "TEXT", "$.n", "AS", "n", "NUMERIC", "SORTABLE", "$.tags[*]", "AS", "tags", "TAG")
	do("FT.ALIASADD", "docs", "hidx")
	do("FT.SYNUPDATE", "hidx", "g1", "quick", "fast")
	do("FT.DICTADD", "words", "alpha", "beta")
	do("FT.SUGADD", "sug", "hello world", "3")
	do("FT.SUGADD", "sug", "help", "1")
	colors := []string{"red", "green", "blue"}
	for i := 0; i < 300; i++ {
		m.Send("HSET", fmt.Sprintf("doc:%d", i), "title", fmt.Sprintf("quick item %d word%d", i, i%7), "n", strconv.Itoa(i), "color", colors[i%3])
		m.Send("JSON.SET", fmt.Sprintf("j:%d", i), "$", fmt.Sprintf(`{"name":"thing %d w%d","n":%d,"tags":["t%d","all"]}`, i, i%5, i, i%4))
	}
	for i := 0; i < 600; i++ {
		if v, _, _ := resp.ParseReply(m.ReadRaw()); v.Kind == resp.KindError {
			t.Fatal(v.Str)
		}
	}
	do("PEXPIRE", "j:7", "100000000")
	do("PEXPIRE", "doc:7", "100000000")
	do("SELECT", "2")
	do("FT.CREATE", "idx2", "ON", "HASH", "SCHEMA", "f", "TEXT")
	do("HSET", "x", "f", "in database two")
	do("SELECT", "0")
}

// ftQueries are the reads whose replies must be equal on master and
// replica.
var ftQueries = [][]string{
	{"FT._LIST"},
	{"FT.SEARCH", "hidx", "@n:[10 40]", "SORTBY", "n", "LIMIT", "0", "100"},
	{"FT.SEARCH", "docs", "fast @color:{red}", "SORTBY", "n", "DESC", "LIMIT", "0", "5"},
	{"FT.SEARCH", "hidx", "word3", "SORTBY", "n", "NOCONTENT", "LIMIT", "0", "1000"},
	{"FT.SEARCH", "jidx", "@tags:{t1}", "SORTBY", "n", "LIMIT", "0", "1000"},
	{"FT.SEARCH", "jidx", "w2 @n:[0 150]", "SORTBY", "n", "RETURN", "1", "name", "LIMIT", "0", "1000"},
	{"FT.AGGREGATE", "jidx", "*", "GROUPBY", "1", "@tags", "REDUCE", "COUNT", "0", "AS", "c", "SORTBY", "2", "@tags", "ASC"},
	{"FT.SYNDUMP", "hidx"},
	{"FT.DICTDUMP", "words"},
	{"FT.SUGGET", "sug", "hel", "WITHSCORES"},
	{"JSON.GET", "j:7"},
	{"PEXPIRETIME", "j:7"},
	{"TYPE", "j:7"},
	{"DBSIZE"},
}

// ftIndexed waits until c's indexes have finished their initial scans.
func ftIndexed(t *testing.T, c *redistest.Conn, db int) {
	t.Helper()
	c.Do("SELECT", strconv.Itoa(db))
	defer c.Do("SELECT", "0")
	deadline := time.Now().Add(20 * time.Second)
	for _, n := range c.Do("FT._LIST").Elems {
		for {
			v := c.Do("FT.INFO", n.Str)
			done := false
			for k := 0; k+1 < len(v.Elems); k += 2 {
				if v.Elems[k].Str == "indexing" {
					done = v.Elems[k+1].Int == 0 && v.Elems[k+1].Str != "1"
				}
			}
			if done {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("index %s still indexing after 20s: %v", n.Str, v)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func ftCompare(t *testing.T, m, r *redistest.Conn) {
	t.Helper()
	ftIndexed(t, r, 0)
	for _, q := range ftQueries {
		want, got := m.Do(q...), r.Do(q...)
		if want.Kind == resp.KindError {
			t.Fatalf("%v on the master: %s", q, want.Str)
		}
		if w, g := redistest.Canonical(want, false), redistest.Canonical(got, false); w != g {
			t.Errorf("%v:\nmaster  %.400s\nreplica %.400s", q, w, g)
		}
	}
	for _, c := range []*redistest.Conn{m, r} {
		c.Do("SELECT", "2")
	}
	q := []string{"FT.SEARCH", "idx2", "database"}
	if w, g := redistest.Canonical(m.Do(q...), false), redistest.Canonical(r.Do(q...), false); w != g {
		t.Errorf("%v in database 2:\nmaster  %s\nreplica %s", q, w, g)
	}
	for _, c := range []*redistest.Conn{m, r} {
		c.Do("SELECT", "0")
	}
}

// TestFullSyncCarriesIndexes: an Ordo replica's full sync from an Ordo
// master brings the master's FT indexes (over hashes and JSON documents,
// in two databases), alias, synonyms, dictionary, suggestions and JSON
// documents with their TTLs, replacing the replica's own index; then the
// replicated writes keep the replica's searches equal to the master's.
// The disk form and the diskless form, the sliced snapshot and (for the
// second replica) the snapshot of a replica (chained).
func TestFullSyncCarriesIndexes(t *testing.T) {
	for _, diskless := range []string{"no", "yes"} {
		t.Run("diskless "+diskless, func(t *testing.T) {
			o := redistest.StartOrdo(t, "repl-diskless-sync", diskless, "repl-diskless-sync-delay", "0")
			rs := redistest.StartOrdo(t, "repl-diskless-sync-delay", "0")
			chained := redistest.StartOrdo(t)
			m, r, c := redistest.Dial(t, o.Addr), redistest.Dial(t, rs.Addr), redistest.Dial(t, chained.Addr)
			ftWrite(t, m)
			// The replica's own index and data give way to the master's.
			r.Do("FT.CREATE", "hidx", "ON", "HASH", "PREFIX", "1", "other:", "SCHEMA", "z", "TEXT")
			r.Do("FT.CREATE", "mine", "ON", "HASH", "SCHEMA", "z", "TEXT")
			r.Do("HSET", "other:1", "z", "zzz")
			replicaOf(t, r, o.Addr)
			waitSynced(t, m, r)
			ftCompare(t, m, r)
			replicaOf(t, c, rs.Addr)
			waitSynced(t, m, c)
			ftCompare(t, m, c)

			// Writes on the master keep the replicas' indexes in step.
			for i := 0; i < 50; i++ {
				m.Do("HSET", fmt.Sprintf("doc:%d", 1000+i), "title", "quick late", "n", strconv.Itoa(20+i), "color", "red")
				m.Do("DEL", fmt.Sprintf("doc:%d", 15+i))
				m.Do("JSON.SET", fmt.Sprintf("j:%d", i), "$.tags", `["t1"]`)
				m.Do("JSON.NUMINCRBY", fmt.Sprintf("j:%d", 100+i), "$.n", "1000")
			}
			m.Do("FT.SUGADD", "sug", "helium", "2")
			m.Do("FT.DICTDEL", "words", "beta")
			m.Do("FT.SYNUPDATE", "hidx", "g1", "rapid")
			for _, x := range []*redistest.Conn{r, c} {
				waitSynced(t, m, x)
				ftCompare(t, m, x)
			}
		})
	}
}

// TestRedisReplicaOfOrdoWithIndexes: a redis-server replica of an Ordo
// master holding FT indexes and JSON documents loads the file (it skips
// Ordo's aux fields), holds every key but the JSON documents, and the
// master goes on serving it.
func TestRedisReplicaOfOrdoWithIndexes(t *testing.T) {
	for _, diskless := range []string{"no", "yes"} {
		t.Run("diskless "+diskless, func(t *testing.T) {
			o := redistest.StartOrdo(t, "repl-diskless-sync", diskless, "repl-diskless-sync-delay", "0")
			rs := redistest.StartRedis(t)
			m, r := redistest.Dial(t, o.Addr), redistest.Dial(t, rs.Addr)
			ftWrite(t, m)
			replicaOf(t, r, o.Addr)
			waitSynced(t, m, r)
			m.Do("HSET", "doc:1", "title", "after")
			m.Do("JSON.SET", "j:1", "$.n", "5") // Redis has no JSON.SET: its error is logged
			m.Do("SET", "plain", "x")
			waitSynced(t, m, r)
			if v := r.Do("HGET", "doc:1", "title"); v.Str != "after" {
				t.Fatalf("HGET doc:1 title on the redis-server replica: %v", v)
			}
			if v := r.Do("GET", "plain"); v.Str != "x" {
				t.Fatalf("GET plain on the redis-server replica: %v", v)
			}
			if v := r.Do("EXISTS", "j:1", "j:2"); v.Int != 0 {
				t.Fatalf("JSON documents on the redis-server replica: EXISTS %v", v)
			}
			if v := r.Do("DBSIZE"); v.Int != 301 {
				t.Fatalf("DBSIZE of the redis-server replica: %v, want the 300 hashes and plain", v)
			}
			if v := m.Do("PING"); v.Str != "PONG" {
				t.Fatalf("master after the sync: %v", v)
			}
		})
	}
}

// TestFullSyncReplacesFunctions: as a redis-server replica does, an Ordo
// replica's function libraries after a full sync are its master's (its
// own are gone), from a redis-server master and from an Ordo master.
func TestFullSyncReplacesFunctions(t *testing.T) {
	libs := func(c *redistest.Conn) []string {
		var out []string
		for _, l := range c.Do("FUNCTION", "LIST").Elems {
			for k := 0; k+1 < len(l.Elems); k += 2 {
				if l.Elems[k].Str == "library_name" {
					out = append(out, l.Elems[k+1].Str)
				}
			}
		}
		return out
	}
	for _, kind := range []string{"redis", "ordo"} {
		t.Run(kind+" master", func(t *testing.T) {
			addr := ""
			if kind == "redis" {
				addr = redistest.StartRedis(t, "--repl-diskless-sync-delay", "0").Addr
			} else {
				addr = redistest.StartOrdo(t, "repl-diskless-sync-delay", "0").Addr
			}
			m, r := redistest.Dial(t, addr), redistest.Dial(t, redistest.StartOrdo(t).Addr)
			if v := m.Do("FUNCTION", "LOAD", "#!lua name=mlib\nredis.register_function('mf', function() return 1 end)"); v.Kind == resp.KindError {
				t.Fatal(v.Str)
			}
			if v := r.Do("FUNCTION", "LOAD", "#!lua name=rlib\nredis.register_function('rf', function() return 1 end)"); v.Kind == resp.KindError {
				t.Fatal(v.Str)
			}
			m.Do("SET", "k", "v")
			replicaOf(t, r, addr)
			waitSynced(t, m, r)
			if got := libs(r); len(got) != 1 || got[0] != "mlib" {
				t.Fatalf("the replica's libraries after the full sync: %v, want [mlib]", got)
			}
		})
	}
}
