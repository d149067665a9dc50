package engine_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// go-redis's PubSub API against ordo-server, in RESP2 and RESP3:
// Subscribe/PSubscribe confirmations, ReceiveMessage, Channel(),
// PubSubChannels/NumSub/NumPat, Unsubscribe, Ping in subscribed mode, and
// keyspace notifications.
func TestGoRedisPubSub(t *testing.T) {
	o := redistest.StartOrdo(t, "notify-keyspace-events", "KEA")
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprint("RESP", proto), func(t *testing.T) {
			rdb := redis.NewClient(&redis.Options{Addr: o.Addr, Protocol: proto})
			defer rdb.Close()
			ps := rdb.Subscribe(ctx, "news", "sport")
			defer ps.Close()
			for _, want := range []string{"news", "sport"} {
				msg, err := ps.Receive(ctx)
				if err != nil {
					t.Fatal(err)
				}
				s, ok := msg.(*redis.Subscription)
				if !ok || s.Kind != "subscribe" || s.Channel != want {
					t.Fatalf("confirmation: %#v", msg)
				}
			}
			if err := ps.PSubscribe(ctx, "__keyevent@0__:*"); err != nil {
				t.Fatal(err)
			}
			if msg, err := ps.Receive(ctx); err != nil || msg.(*redis.Subscription).Kind != "psubscribe" {
				t.Fatalf("psubscribe: %v %v", msg, err)
			}
			chans, err := rdb.PubSubChannels(ctx, "*").Result()
			slices.Sort(chans)
			if err != nil || !slices.Equal(chans, []string{"news", "sport"}) {
				t.Fatalf("PubSubChannels: %v %v", chans, err)
			}
			if n, err := rdb.PubSubNumSub(ctx, "news", "x").Result(); err != nil || n["news"] != 1 || n["x"] != 0 {
				t.Fatalf("PubSubNumSub: %v %v", n, err)
			}
			if n, err := rdb.PubSubNumPat(ctx).Result(); err != nil || n != 1 {
				t.Fatalf("PubSubNumPat: %v %v", n, err)
			}
			if err := ps.Ping(ctx, "hi"); err != nil {
				t.Fatal(err)
			}
			if msg, err := ps.Receive(ctx); err != nil {
				t.Fatal(err)
			} else if p, ok := msg.(*redis.Pong); !ok || p.Payload != "hi" {
				t.Fatalf("pong: %#v", msg)
			}
			for i := 0; i < 100; i++ {
				if err := rdb.Publish(ctx, "news", fmt.Sprint(i)).Err(); err != nil {
					t.Fatal(err)
				}
			}
			rdb.Set(ctx, "k", "v", 0)
			ch := ps.Channel()
			for i := 0; i < 100; i++ {
				m := <-ch
				if m.Channel != "news" || m.Payload != fmt.Sprint(i) {
					t.Fatalf("message %d: %+v", i, m)
				}
			}
			if m := <-ch; m.Pattern != "__keyevent@0__:*" || m.Channel != "__keyevent@0__:set" || m.Payload != "k" {
				t.Fatalf("keyspace notification: %+v", m)
			}
			if err := ps.Unsubscribe(ctx, "news"); err != nil {
				t.Fatal(err)
			}
			if err := ps.PUnsubscribe(ctx); err != nil {
				t.Fatal(err)
			}
			// go-redis does not wait for the confirmations: wait until the
			// server has processed the unsubscriptions.
			for i := 0; ; i++ {
				n, _ := rdb.PubSubNumSub(ctx, "news").Result()
				p, _ := rdb.PubSubNumPat(ctx).Result()
				if n["news"] == 0 && p == 0 {
					break
				}
				if i == 100000 {
					t.Fatal("the unsubscriptions never took effect")
				}
			}
			rdb.Publish(ctx, "news", "late")
			rdb.Publish(ctx, "sport", "goal")
			if m := <-ch; m.Channel != "sport" || m.Payload != "goal" {
				t.Fatalf("after unsubscribe: %+v", m)
			}
		})
	}
}
