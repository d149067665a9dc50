package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// rueidis, whose client-side caching is on by default (RESP3, CLIENT
// TRACKING OPTIN, CLIENT CACHING yes before each cached read): DoCache
// serves a second read from its cache, and a write by another client
// reaches it as an invalidation, after which it reads the new value. Run
// against redis-server and ordo-server alike.
func TestRueidisClientSideCaching(t *testing.T) {
	redistest.RequireRedis(t)
	servers := map[string]string{"redis": redistest.StartRedis(t).Addr, "ordo": redistest.StartOrdo(t).Addr}
	ctx := context.Background()
	for name, addr := range servers {
		t.Run(name, func(t *testing.T) {
			c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableRetry: true})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			writer := redis.NewClient(&redis.Options{Addr: addr})
			defer writer.Close()
			if err := writer.Set(ctx, "csc:k", "v1", 0).Err(); err != nil {
				t.Fatal(err)
			}
			get := func() (string, bool) {
				t.Helper()
				r := c.DoCache(ctx, c.B().Get().Key("csc:k").Cache(), time.Minute)
				v, err := r.ToString()
				if err != nil {
					t.Fatal(err)
				}
				return v, r.IsCacheHit()
			}
			if v, hit := get(); v != "v1" || hit {
				t.Fatalf("first read: %q hit=%v, want v1 from the server", v, hit)
			}
			if v, hit := get(); v != "v1" || !hit {
				t.Fatalf("second read: %q hit=%v, want v1 from the cache", v, hit)
			}
			if err := writer.Set(ctx, "csc:k", "v2", 0).Err(); err != nil {
				t.Fatal(err)
			}
			// The invalidation arrives asynchronously: read until it has
			// (bounded), then the value is the new one.
			v, _ := get()
			for i := 0; i < 1000 && v != "v2"; i++ {
				time.Sleep(5 * time.Millisecond)
				v, _ = get()
			}
			if v != "v2" {
				t.Fatalf("after another client's SET: %q, want v2", v)
			}
			// A cached hash, invalidated by a script's write.
			writer.HSet(ctx, "csc:h", "f", "1")
			hg := func() (map[string]string, bool) {
				r := c.DoCache(ctx, c.B().Hgetall().Key("csc:h").Cache(), time.Minute)
				m, err := r.AsStrMap()
				if err != nil {
					t.Fatal(err)
				}
				return m, r.IsCacheHit()
			}
			hg()
			if _, hit := hg(); !hit {
				t.Fatal("HGETALL not served from the cache")
			}
			writer.Eval(ctx, "return redis.call('hset', KEYS[1], 'f', '2')", []string{"csc:h"})
			m, _ := hg()
			for i := 0; i < 1000 && m["f"] != "2"; i++ {
				time.Sleep(5 * time.Millisecond)
				m, _ = hg()
			}
			if m["f"] != "2" {
				t.Fatalf("after EVAL: %v", m)
			}
		})
	}
}

// go-redis (RESP2) with a tracking connection redirecting to a PubSub
// subscribed to __redis__:invalidate: the invalidated keys arrive as the
// message's PayloadSlice, a flush as an empty one.
func TestGoRedisTrackingRedirect(t *testing.T) {
	o := redistest.StartOrdo(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: o.Addr, Protocol: 2})
	defer rdb.Close()
	ps := rdb.Subscribe(ctx, "__redis__:invalidate")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	var subID string
	for _, line := range strings.Split(rdb.ClientList(ctx).Val(), "\n") {
		if strings.Contains(line, "sub=1") {
			subID = clientInfoField(line, "id")
		}
	}
	if subID == "" {
		t.Fatal("subscriber not found in CLIENT LIST")
	}
	conn := rdb.Conn()
	defer conn.Close()
	if err := conn.Do(ctx, "CLIENT", "TRACKING", "on", "REDIRECT", subID).Err(); err != nil {
		t.Fatal(err)
	}
	conn.MGet(ctx, "gr:a", "gr:b")
	rdb.MSet(ctx, "gr:b", "1", "gr:a", "2")
	var got []string
	for len(got) < 2 {
		msg, err := ps.ReceiveMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if msg.Channel != "__redis__:invalidate" {
			t.Fatalf("message on %q", msg.Channel)
		}
		got = append(got, msg.PayloadSlice...)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"gr:a", "gr:b"}) {
		t.Fatalf("invalidated %v", got)
	}
	if v := conn.Do(ctx, "CLIENT", "GETREDIR").Val(); v != int64(mustAtoi(t, subID)) {
		t.Fatalf("GETREDIR %v, want %s", v, subID)
	}
}

func mustAtoi(t *testing.T, s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}
