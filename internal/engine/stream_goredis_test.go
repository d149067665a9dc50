package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// go-redis's stream API against ordo-server, in RESP2 and RESP3.
func TestGoRedisStreams(t *testing.T) {
	o := redistest.StartOrdo(t)
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprint("RESP", proto), func(t *testing.T) {
			rdb := redis.NewClient(&redis.Options{Addr: o.Addr, Protocol: proto})
			defer rdb.Close()
			rdb.FlushAll(ctx)
			id, err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "1-1", Values: []string{"f", "v", "n", "1"}}).Result()
			if err != nil || id != "1-1" {
				t.Fatalf("XAdd: %q %v", id, err)
			}
			for i := 2; i <= 5; i++ {
				rdb.XAdd(ctx, &redis.XAddArgs{Stream: "s", Values: map[string]any{"n": i}})
			}
			if n, err := rdb.XLen(ctx, "s").Result(); err != nil || n != 5 {
				t.Fatalf("XLen: %d %v", n, err)
			}
			msgs, err := rdb.XRange(ctx, "s", "-", "+").Result()
			if err != nil || len(msgs) != 5 || msgs[0].ID != "1-1" || msgs[0].Values["f"] != "v" {
				t.Fatalf("XRange: %v %v", msgs, err)
			}
			if err := rdb.XGroupCreateMkStream(ctx, "s", "g", "0").Err(); err != nil {
				t.Fatal(err)
			}
			if err := rdb.XGroupCreateMkStream(ctx, "s", "g", "0").Err(); err == nil || err.Error() != "BUSYGROUP Consumer Group name already exists" {
				t.Fatalf("second create: %v", err)
			}
			streams, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c1", Streams: []string{"s", ">"}, Count: 3}).Result()
			if err != nil || len(streams) != 1 || len(streams[0].Messages) != 3 {
				t.Fatalf("XReadGroup: %v %v", streams, err)
			}
			if n, err := rdb.XAck(ctx, "s", "g", streams[0].Messages[0].ID).Result(); err != nil || n != 1 {
				t.Fatalf("XAck: %d %v", n, err)
			}
			p, err := rdb.XPending(ctx, "s", "g").Result()
			if err != nil || p.Count != 2 || p.Consumers["c1"] != 2 {
				t.Fatalf("XPending: %+v %v", p, err)
			}
			ext, err := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "s", Group: "g", Start: "-", End: "+", Count: 10}).Result()
			if err != nil || len(ext) != 2 || ext[0].Consumer != "c1" || ext[0].RetryCount != 1 {
				t.Fatalf("XPendingExt: %+v %v", ext, err)
			}
			claimed, start, err := rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: "s", Group: "g", Consumer: "c2", Start: "0", Count: 1}).Result()
			if err != nil || len(claimed) != 1 || start != ext[1].ID {
				t.Fatalf("XAutoClaim: %v %q %v", claimed, start, err)
			}
			ids, err := rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: "s", Group: "g", Consumer: "c3", Messages: []string{ext[1].ID}}).Result()
			if err != nil || len(ids) != 1 {
				t.Fatalf("XClaimJustID: %v %v", ids, err)
			}
			info, err := rdb.XInfoStream(ctx, "s").Result()
			if err != nil || info.Length != 5 || info.Groups != 1 || info.FirstEntry.ID != "1-1" || info.EntriesAdded != 5 {
				t.Fatalf("XInfoStream: %+v %v", info, err)
			}
			groups, err := rdb.XInfoGroups(ctx, "s").Result()
			if err != nil || len(groups) != 1 || groups[0].Pending != 2 || groups[0].Lag != 2 || groups[0].EntriesRead != 3 {
				t.Fatalf("XInfoGroups: %+v %v", groups, err)
			}
			cons, err := rdb.XInfoConsumers(ctx, "s", "g").Result()
			if err != nil || len(cons) != 3 || cons[0].Name != "c1" {
				t.Fatalf("XInfoConsumers: %+v %v", cons, err)
			}
			full, err := rdb.XInfoStreamFull(ctx, "s", 10).Result()
			if err != nil || len(full.Entries) != 5 || len(full.Groups) != 1 || len(full.Groups[0].Consumers) != 3 {
				t.Fatalf("XInfoStreamFull: %+v %v", full, err)
			}
			if n, err := rdb.XTrimMaxLen(ctx, "s", 2).Result(); err != nil || n != 3 {
				t.Fatalf("XTrimMaxLen: %d %v", n, err)
			}
			// A blocking XRead served by another client's XAdd.
			done := make(chan []redis.XStream, 1)
			go func() {
				r, _ := rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{"s", "$"}, Block: 0}).Result()
				done <- r
			}()
			other := redis.NewClient(&redis.Options{Addr: o.Addr, Protocol: proto})
			defer other.Close()
			for {
				// Wait until the reader is blocked (CLIENT LIST shows it).
				if n := blockedClients(ctx, other); n == 1 {
					break
				}
				time.Sleep(time.Millisecond)
			}
			other.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "999999999999999-1", Values: []string{"k", "v"}})
			r := <-done
			if len(r) != 1 || len(r[0].Messages) != 1 || r[0].Messages[0].ID != "999999999999999-1" {
				t.Fatalf("blocked XRead: %v", r)
			}
		})
	}
}

func blockedClients(ctx context.Context, c *redis.Client) int {
	info, _ := c.Info(ctx, "clients").Result()
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "blocked_clients:"); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// A job queue on ordo-server: two producers XADD jobs, a group of three
// workers XREADGROUP BLOCK and XACK; one worker crashes holding jobs it
// never processed, and a recovery pass with XAUTOCLAIM takes them over.
// Every job is processed exactly once, and nothing stays pending.
func TestStreamJobQueue(t *testing.T) {
	o := redistest.StartOrdo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a safety net, not an assertion
	defer cancel()
	const producers, perProducer = 2, 150
	const total = producers * perProducer
	newClient := func() *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: o.Addr})
		t.Cleanup(func() { c.Close() })
		return c
	}
	admin := newClient()
	if err := admin.XGroupCreateMkStream(ctx, "jobs", "workers", "$").Err(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	processed := map[string]int{} // job payload -> times processed
	held := 0                     // jobs taken by the crashed worker
	progress := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(processed) + held
	}
	process := func(c *redis.Client, msgs []redis.XMessage) {
		for _, m := range msgs {
			mu.Lock()
			processed[m.Values["job"].(string)]++
			mu.Unlock()
			if err := c.XAck(ctx, "jobs", "workers", m.ID).Err(); err != nil {
				t.Error(err)
			}
		}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	// worker-2 blocks first, so that it is served the first job(s), then
	// crashes without processing them.
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := newClient()
		res, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "workers", Consumer: "worker-2",
			Streams: []string{"jobs", ">"}, Count: 7, Block: 0}).Result()
		if err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		held += len(res[0].Messages)
		mu.Unlock()
	}()
	for blockedClients(ctx, admin) != 1 {
		time.Sleep(time.Millisecond)
	}
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c := newClient()
			name := fmt.Sprint("worker-", w)
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "workers", Consumer: name,
					Streams: []string{"jobs", ">"}, Count: 7, Block: 50 * time.Millisecond}).Result()
				if errors.Is(err, redis.Nil) {
					continue
				}
				if err != nil {
					if ctx.Err() == nil {
						t.Error(err)
					}
					return
				}
				process(c, res[0].Messages)
			}
		}(w)
	}
	var pw sync.WaitGroup
	for p := 0; p < producers; p++ {
		pw.Add(1)
		go func(p int) {
			defer pw.Done()
			c := newClient()
			for i := 0; i < perProducer; i++ {
				if err := c.XAdd(ctx, &redis.XAddArgs{Stream: "jobs", Values: []string{"job", fmt.Sprint(p, "-", i)}}).Err(); err != nil {
					t.Error(err)
					return
				}
			}
		}(p)
	}
	pw.Wait()
	for progress() < total && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	mu.Lock()
	crashedWith := held
	mu.Unlock()
	pend, err := admin.XPending(ctx, "jobs", "workers").Result()
	if err != nil || crashedWith == 0 || pend.Count != int64(crashedWith) || pend.Consumers["worker-2"] != int64(crashedWith) {
		t.Fatalf("before recovery: XPENDING %+v %v (crashed worker held %d)", pend, err, crashedWith)
	}
	// Recovery: XAUTOCLAIM from the start until the cursor comes back to 0-0.
	rec := newClient()
	start := "0-0"
	for {
		msgs, next, err := rec.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: "jobs", Group: "workers",
			Consumer: "recovery", MinIdle: 0, Start: start, Count: 4}).Result()
		if err != nil {
			t.Fatal(err)
		}
		process(rec, msgs)
		if next == "0-0" {
			break
		}
		start = next
	}
	mu.Lock()
	defer mu.Unlock()
	if len(processed) != total {
		t.Fatalf("%d distinct jobs processed, want %d", len(processed), total)
	}
	for job, n := range processed {
		if n != 1 {
			t.Errorf("job %s processed %d times", job, n)
		}
	}
	if pend, err := admin.XPending(ctx, "jobs", "workers").Result(); err != nil || pend.Count != 0 {
		t.Fatalf("after recovery: XPENDING %+v %v", pend, err)
	}
	if n, _ := admin.XLen(ctx, "jobs").Result(); n != total {
		t.Fatalf("XLEN %d, want %d", n, total)
	}
}
