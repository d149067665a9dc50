package ordo_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordo-db/ordo"
)

func open(t *testing.T, o *ordo.Options) *ordo.DB {
	t.Helper()
	db, err := ordo.Open(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func info(t *testing.T, db *ordo.DB, section, field string) string {
	t.Helper()
	s, err := db.Do(context.Background(), "INFO", section).Text()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(s, "\r\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return ""
}

// Two databases in one process share nothing: configuration, expiry,
// scripts, memory accounting, statistics and run id are each their own.
func TestTwoDatabasesAreIndependent(t *testing.T) {
	ctx := context.Background()
	a := open(t, &ordo.Options{InMemory: true})
	b := open(t, &ordo.Options{InMemory: true})

	if ra, rb := info(t, a, "server", "run_id"), info(t, b, "server", "run_id"); ra == rb {
		t.Errorf("both databases have run_id %s", ra)
	}

	// Configuration.
	before, _ := b.Do(ctx, "CONFIG", "GET", "hash-max-listpack-entries").StringSlice()
	if err := a.Do(ctx, "CONFIG", "SET", "hash-max-listpack-entries", "7").Err(); err != nil {
		t.Fatal(err)
	}
	got, _ := b.Do(ctx, "CONFIG", "GET", "hash-max-listpack-entries").StringSlice()
	if len(got) != 2 || len(before) != 2 || got[1] != before[1] || got[1] == "7" {
		t.Errorf("CONFIG SET on a changed b: %v", got)
	}

	// Active expiry switched off in a keeps running in b.
	if err := a.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err(); err != nil {
		t.Fatal(err)
	}
	for _, db := range []*ordo.DB{a, b} {
		db.Do(ctx, "SET", "tmp", "x", "PX", "1")
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if n, _ := b.Do(ctx, "DBSIZE").Int64(); n == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n, _ := b.Do(ctx, "DBSIZE").Int64(); n != 0 {
		t.Errorf("b: active expiry did not remove the key (DBSIZE %d)", n)
	}
	if n, _ := a.Do(ctx, "DBSIZE").Int64(); n != 1 {
		t.Errorf("a: active expiry is off, DBSIZE %d, want 1 (the key is expired but not collected)", n)
	}
	if s := info(t, a, "stats", "expired_keys"); s != "0" {
		t.Errorf("a: expired_keys %s, want 0", s)
	}

	// Scripts: each has its own cache; both have EVAL.
	sha, err := a.Do(ctx, "SCRIPT", "LOAD", "return 1").Text()
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := b.Do(ctx, "SCRIPT", "EXISTS", sha).Int64Slice(); len(n) != 1 || n[0] != 0 {
		t.Errorf("script loaded in a exists in b: %v", n)
	}
	if v, err := b.Do(ctx, "EVAL", "return 2", "0").Int64(); err != nil || v != 2 {
		t.Errorf("EVAL in b: %v %v", v, err)
	}

	// Memory: b's data does not count against a's maxmemory.
	big := strings.Repeat("x", 1<<20)
	for i := range 64 {
		if err := b.Do(ctx, "SET", "big:"+string(rune('a'+i%26))+string(rune('a'+i/26)), big).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Do(ctx, "CONFIG", "SET", "maxmemory", "8mb").Err(); err != nil {
		t.Fatal(err)
	}
	if err := a.Do(ctx, "SET", "small", "v").Err(); err != nil {
		t.Errorf("a with 64 MiB in b: %v", err)
	}
	// ... while a's own data does.
	for i := range 10 {
		a.Do(ctx, "SET", "a:"+string(rune('a'+i)), big)
	}
	var oom *ordo.Error
	if err := a.Do(ctx, "SET", "more", "v").Err(); !errors.As(err, &oom) || !strings.HasPrefix(oom.Msg, "OOM ") {
		t.Errorf("a over its maxmemory: %v, want OOM", err)
	}
	if err := b.Do(ctx, "SET", "more", "v").Err(); err != nil {
		t.Errorf("b after a's OOM: %v", err)
	}

	// FLUSHALL in a leaves b alone.
	a.Do(ctx, "FLUSHALL")
	if n, _ := b.Do(ctx, "EXISTS", "more").Int64(); n != 1 {
		t.Errorf("FLUSHALL in a flushed b")
	}
}

// used_memory follows the database's own data: it grows with what is
// written and shrinks back when it is deleted.
func TestUsedMemoryCountsTheData(t *testing.T) {
	ctx := context.Background()
	db := open(t, &ordo.Options{InMemory: true})
	used := func() int64 {
		n, err := db.Do(ctx, "MEMORY", "STATS").Slice()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(n); i += 2 {
			if n[i] == "total.allocated" {
				return n[i+1].(int64)
			}
		}
		t.Fatal("MEMORY STATS has no total.allocated")
		return 0
	}
	empty := used()
	for i := range 1000 {
		db.Do(ctx, "HSET", "h", i, strings.Repeat("v", 100))
		db.Do(ctx, "RPUSH", "l", strings.Repeat("v", 100))
		db.Do(ctx, "SET", i, strings.Repeat("v", 100))
	}
	full := used()
	if full-empty < 3*1000*100 {
		t.Errorf("used memory grew by %d bytes for 300,000 bytes of values", full-empty)
	}
	db.Do(ctx, "DEL", "h", "l")
	db.Do(ctx, "FLUSHDB")
	if after := used(); after > empty+64<<10 {
		t.Errorf("used memory %d after deleting everything, %d when empty", after, empty)
	}
}

// Close is safe against concurrent use: calls in progress finish or fail
// with ErrClosed, blocked ones wake up, later ones get ErrClosed.
func TestCloseDuringUse(t *testing.T) {
	ctx := context.Background()
	db, err := ordo.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				err := db.Do(ctx, "INCR", g).Err()
				if errors.Is(err, ordo.ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	blocked := make(chan error, 1)
	go func() { blocked <- db.Do(ctx, "BLPOP", "nothing", "0").Err() }()
	time.Sleep(50 * time.Millisecond)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	select {
	case err := <-blocked:
		if !errors.Is(err, ordo.ErrClosed) {
			t.Errorf("blocked BLPOP after Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("blocked BLPOP still waiting after Close")
	}
	if err := db.Do(ctx, "PING").Err(); !errors.Is(err, ordo.ErrClosed) {
		t.Errorf("Do after Close: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A closed Conn releases its WATCHes: a later write to the key no longer
// marks a transaction anyone could run, and the Conn refuses commands.
func TestConnClose(t *testing.T) {
	ctx := context.Background()
	db := open(t, &ordo.Options{InMemory: true})
	c := db.Conn()
	if err := c.Do(ctx, "WATCH", "k").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "PING").Err(); err == nil {
		t.Error("Do on a closed Conn succeeded")
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// A new session is unaffected by the old WATCH.
	c2 := db.Conn()
	defer c2.Close()
	c2.Do(ctx, "MULTI")
	c2.Do(ctx, "SET", "k", "v")
	if v, err := c2.Do(ctx, "EXEC").StringSlice(); err != nil || len(v) != 1 || v[0] != "OK" {
		t.Errorf("EXEC: %v %v", v, err)
	}
}

func TestReplyAccessors(t *testing.T) {
	ctx := context.Background()
	db := open(t, &ordo.Options{InMemory: true})
	db.Do(ctx, "RPUSH", "l", 1, 2, 3)
	if v, err := db.Do(ctx, "LRANGE", "l", 0, -1).Int64Slice(); err != nil || len(v) != 3 || v[2] != 3 {
		t.Errorf("Int64Slice: %v %v", v, err)
	}
	if _, err := db.Do(ctx, "GET", "missing").Text(); !errors.Is(err, ordo.ErrNil) {
		t.Errorf("GET missing: %v, want ErrNil", err)
	}
	if ok, err := db.Do(ctx, "SET", "k", "v").Bool(); err != nil || !ok {
		t.Errorf("SET as Bool: %v %v", ok, err)
	}
	if f, err := db.Do(ctx, "INCRBYFLOAT", "f", "1.5").Float64(); err != nil || f != 1.5 {
		t.Errorf("Float64: %v %v", f, err)
	}
	var e *ordo.Error
	if err := db.Do(ctx, "LPUSH", "k", "x").Err(); !errors.As(err, &e) || !strings.HasPrefix(e.Msg, "WRONGTYPE") {
		t.Errorf("WRONGTYPE: %v", err)
	}
}

func TestOptions(t *testing.T) {
	if _, err := ordo.Open(t.TempDir(), &ordo.Options{Config: map[string]string{"no-such-option": "1"}}); err == nil {
		t.Error("unknown option accepted")
	}
	db := open(t, &ordo.Options{InMemory: true, Sync: ordo.SyncAlways, MaxMemory: 1 << 30, Databases: 4})
	ctx := context.Background()
	for name, want := range map[string]string{"appendonly": "no", "appendfsync": "always", "maxmemory": "1073741824", "databases": "4"} {
		got, _ := db.Do(ctx, "CONFIG", "GET", name).StringSlice()
		if len(got) != 2 || got[1] != want {
			t.Errorf("CONFIG GET %s: %v, want %s", name, got, want)
		}
	}
}

// CLIENT TRACKING on an embedded connection: accepted, and its own writes
// never slip an invalidation push into a reply (an embedded session has
// no push channel).
func TestEmbeddedTrackingKeepsRepliesClean(t *testing.T) {
	ctx := context.Background()
	db := open(t, &ordo.Options{InMemory: true})
	c := db.Conn()
	defer c.Close()
	for _, args := range [][]any{{"HELLO", "3"}, {"CLIENT", "TRACKING", "on"}} {
		if err := c.Do(ctx, args...).Err(); err != nil {
			t.Fatal(args, err)
		}
	}
	c.Do(ctx, "GET", "k")
	if s, err := c.Do(ctx, "SET", "k", "v").Text(); err != nil || s != "OK" {
		t.Fatalf("SET: %q %v", s, err)
	}
	if s, err := c.Do(ctx, "GET", "k").Text(); err != nil || s != "v" {
		t.Fatalf("GET: %q %v", s, err)
	}
	if err := c.Do(ctx, "FLUSHALL").Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Do(ctx, "DBSIZE").Int64(); err != nil || n != 0 {
		t.Fatalf("DBSIZE: %d %v", n, err)
	}
}
