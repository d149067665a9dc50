package engine

import (
	"bytes"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// The pubsub output limits: past the hard limit at once, above the soft
// limit for longer than its seconds, and only while subscribed.
func TestOutboxLimits(t *testing.T) {
	cfg := NewConfig()
	if err := cfg.Set("client-output-buffer-limit", "pubsub 1000 500 1", true); err != nil {
		t.Fatal(err)
	}
	e := New(cfg)
	defer e.Close()
	newSub := func() (*Client, *int) {
		cl := e.NewClient("embedded")
		kills := new(int)
		cl.Kill = func() { *kills++ }
		e.subscribe(cl, kindChannel, []byte("ch"))
		return cl, kills
	}
	chunk := func(n int) []byte { return bytes.Repeat([]byte("x"), n) }
	e.Lock()
	defer e.Unlock()

	cl, kills := newSub()
	ob := cl.Outbox()
	ob.Append(chunk(400))
	ob.Append(chunk(200)) // above soft: the clock starts
	if ob.Dead() || ob.softAt.IsZero() {
		t.Fatalf("soft limit reached: dead %v, since %v", ob.Dead(), ob.softAt)
	}
	ob.Append(chunk(10))
	if ob.Dead() {
		t.Fatal("disconnected before the soft limit's seconds passed")
	}
	ob.softAt = ob.softAt.Add(-2 * time.Second) // as if 2 s had passed
	ob.Append(chunk(10))
	if !ob.Dead() || *kills != 1 || !cl.Killed() || ob.Pending() != 0 {
		t.Fatalf("above the soft limit for 2 s: dead %v, kills %d, pending %d", ob.Dead(), *kills, ob.Pending())
	}
	ob.Append(chunk(10))
	if ob.Pending() != 0 || *kills != 1 {
		t.Fatal("a dead outbox must drop everything")
	}

	cl, kills = newSub()
	ob = cl.Outbox()
	ob.Append(chunk(600))
	var out bytes.Buffer
	ob.WriteTo(&out) // the reader caught up
	ob.Append(chunk(10))
	if !ob.softAt.IsZero() || out.Len() != 600 {
		t.Fatalf("below the soft limit again: since %v, wrote %d", ob.softAt, out.Len())
	}
	ob.Append(chunk(1000))
	if !ob.Dead() || *kills != 1 {
		t.Fatalf("past the hard limit: dead %v kills %d", ob.Dead(), *kills)
	}

	// A client that unsubscribed from everything is a normal client,
	// unlimited by default.
	cl, kills = newSub()
	e.unsubscribeAll(cl)
	cl.Outbox().Append(chunk(5000))
	if cl.Outbox().Dead() || *kills != 0 {
		t.Fatal("limits applied to an unsubscribed client")
	}
}

// BenchmarkPublish measures PUBLISH inside the engine (encoding once,
// appending to each subscriber's Outbox), with 1 and 50 subscribers whose
// queues are drained every 64 messages, and with a pattern subscriber.
func BenchmarkPublish(b *testing.B) {
	for _, tc := range []struct {
		name     string
		subs     int
		patterns bool
	}{{"1sub", 1, false}, {"50subs", 50, false}, {"1pattern", 1, true}} {
		b.Run(tc.name, func(b *testing.B) {
			e := New(nil)
			defer e.Close()
			var obs []*Outbox
			e.Lock()
			for i := 0; i < tc.subs; i++ {
				cl := e.NewClient("embedded")
				if tc.patterns {
					e.subscribe(cl, kindPattern, []byte("news.*"))
				} else {
					e.subscribe(cl, kindChannel, []byte("news.tech"))
				}
				obs = append(obs, cl.Outbox())
			}
			e.Unlock()
			pub := e.NewClient("embedded")
			w := &resp.Writer{Proto: 2}
			args := [][]byte{[]byte("PUBLISH"), []byte("news.tech"), []byte("a message of some 32 bytes......")}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w.Reset()
				e.Lock()
				e.Call(pub, args, w)
				e.Unlock()
				if i&63 == 63 {
					for _, ob := range obs {
						ob.Release(ob.Take())
					}
				}
			}
		})
	}
}
