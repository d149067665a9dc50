package goredis_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/backend"
	"github.com/ordo-db/ordo/backend/goredis"
	"github.com/ordo-db/ordo/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// backends: this adapter on redis-server (RESP3 and RESP2), ordo-server
// and a Redis Cluster, and the embedded adapter (ordo.DB.Backend) for
// comparison: every one must give the same normalized replies.
func backends(t *testing.T) map[string]backend.Backend {
	t.Helper()
	db, err := ordo.Open(t.TempDir(), &ordo.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r, o := redistest.Shared(t)
	client := func(addr string, proto int) backend.Backend {
		c := redis.NewClient(&redis.Options{Addr: addr, Protocol: proto, DisableIdentity: proto == 2})
		t.Cleanup(func() { c.Close() })
		return goredis.New(c)
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: redistest.SharedCluster(t).Addrs()})
	t.Cleanup(func() { cc.Close() })
	return map[string]backend.Backend{
		"embedded":      db.Backend(),
		"ordo-server":   client(o.Addr, 3),
		"redis-server":  client(r.Addr, 3),
		"redis-resp2":   client(r.Addr, 2),
		"redis-cluster": goredis.New(cc),
	}
}

func TestAdapters(t *testing.T) {
	for name, b := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			if _, err := b.Do(ctx, "FLUSHALL"); err != nil {
				t.Fatal(err)
			}
			_, isRouter := b.(backend.Router)
			if isRouter != (name == "redis-cluster") {
				t.Errorf("implements backend.Router: %v", isRouter)
			}
			check := func(what string, got any, want string) {
				t.Helper()
				if s := fmt.Sprintf("%#v", got); s != want {
					t.Errorf("%s: got %s, want %s", what, s, want)
				}
			}
			v, err := b.Do(ctx, "SET", "{k}s", "v")
			if err != nil {
				t.Fatal(err)
			}
			check("SET", v, `"OK"`)
			v, _ = b.Do(ctx, "GET", "{k}s")
			check("GET", v, `"v"`)
			v, err = b.Do(ctx, "GET", "{k}missing")
			if v != nil || err != nil {
				t.Errorf("GET missing: %#v %v", v, err)
			}
			v, _ = b.Do(ctx, "INCR", "{k}n")
			check("INCR", v, `1`)
			b.Do(ctx, "HSET", "{k}h", "f", "1")
			v, _ = b.Do(ctx, "HGETALL", "{k}h") // a map in RESP3
			check("HGETALL", v, `[]interface {}{"f", "1"}`)
			v, _ = b.Do(ctx, "EVAL", "return redis.call('ZADD', KEYS[1], 1.5, 'm')", 1, "{k}z")
			check("EVAL", v, `1`)
			v, _ = b.Do(ctx, "ZSCORE", "{k}z", "m") // a double in RESP3
			if v != "1.5" && v != 1.5 {
				t.Errorf("ZSCORE: %#v", v)
			}

			_, err = b.Do(ctx, "LPUSH", "{k}s", "x")
			if !backend.HasCode(err, "WRONGTYPE") {
				t.Errorf("LPUSH on a string: %#v", err)
			}

			// An error element of an array is an *Error value.
			v, err = b.Eval(ctx, backend.NewScript("return {1, redis.error_reply('MINE inside')}"), []string{"{k}x"})
			arr, _ := v.([]any)
			if err != nil || len(arr) != 2 || !backend.HasCode(arrErr(arr[1]), "MINE") {
				t.Errorf("script array with an error: %#v %v", v, err)
			}
			_, err = b.Eval(ctx, backend.NewScript("return redis.error_reply('STALE token')"), []string{"{k}x"})
			if !backend.HasCode(err, "STALE") {
				t.Errorf("script error: %#v", err)
			}

			res, err := b.Pipeline(ctx, []backend.Cmd{{"SET", "{k}p", "1"}, {"LPUSH", "{k}p", "x"}, {"GET", "{k}p"}})
			if err != nil || len(res) != 3 || res[0].Val != "OK" || !backend.HasCode(res[1].Err, "WRONGTYPE") || res[2].Val != "1" {
				t.Errorf("Pipeline: %+v %v", res, err)
			}
			// A runtime error inside EXEC is per command; the others ran.
			res, err = b.Tx(ctx, []backend.Cmd{{"SET", "{k}t", "1"}, {"LPUSH", "{k}t", "x"}, {"INCR", "{k}t"}})
			if err != nil || len(res) != 3 || res[0].Val != "OK" || !backend.HasCode(res[1].Err, "WRONGTYPE") || res[2].Val != int64(2) {
				t.Errorf("Tx: %+v %v", res, err)
			}
			// A command refused while queued aborts the whole transaction.
			res, err = b.Tx(ctx, []backend.Cmd{{"SET", "{k}t", "9"}, {"NOSUCHCOMMAND", "{k}t"}})
			var e *backend.Error
			if res != nil || !errors.As(err, &e) {
				t.Errorf("Tx with an unknown command: %+v %#v", res, err)
			}
			v, _ = b.Do(ctx, "GET", "{k}t")
			check("after the aborted Tx", v, `"2"`)

			if r, ok := b.(backend.Router); ok {
				keys := []string{}
				for i := range 20 {
					k := fmt.Sprint("{tag}:", i)
					keys = append(keys, k)
					b.Do(ctx, "SET", k, i)
				}
				v, err := r.DoAt(ctx, "{tag}", "SCAN", 0, "MATCH", "{tag}:*", "COUNT", 1000)
				arr, _ := v.([]any)
				if err != nil || len(arr) != 2 {
					t.Fatalf("DoAt SCAN: %#v %v", v, err)
				}
				got := []string{}
				for _, x := range arr[1].([]any) {
					got = append(got, x.(string))
				}
				slices.Sort(got)
				slices.Sort(keys)
				if !slices.Equal(got, keys) {
					t.Errorf("DoAt SCAN found %v, want %v", got, keys)
				}
			}
		})
	}
}

func arrErr(v any) error {
	e, _ := v.(*backend.Error)
	if e == nil {
		return nil
	}
	return e
}
