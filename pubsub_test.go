package ordo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ordo-db/ordo"
)

func recv(t *testing.T, sub *ordo.Subscription) ordo.Message {
	t.Helper()
	m, ok := <-sub.C
	if !ok {
		t.Fatalf("subscription closed: %v", sub.Err())
	}
	return m
}

// The embedded Subscribe: messages in publication order, patterns,
// unsubscription, and two databases that never see each other's messages.
func TestEmbeddedSubscribe(t *testing.T) {
	ctx := context.Background()
	db := open(t, &ordo.Options{InMemory: true})
	other := open(t, &ordo.Options{InMemory: true})
	sub, err := db.Subscribe(ctx, "news")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if err := sub.PSubscribe(ctx, "sp*"); err != nil {
		t.Fatal(err)
	}
	if n, _ := other.Publish(ctx, "news", "elsewhere"); n != 0 {
		t.Fatalf("another DB reached this subscriber: %d", n)
	}
	const n = 1000
	for i := 0; i < n; i++ {
		if got, err := db.Publish(ctx, "news", fmt.Sprint(i)); got != 1 || err != nil {
			t.Fatalf("PUBLISH: %d %v", got, err)
		}
		if i%10 == 0 {
			db.Do(ctx, "PUBLISH", "sport", "goal")
		}
	}
	next := 0
	for next < n {
		m := recv(t, sub)
		switch m.Kind {
		case "message":
			if m.Channel != "news" || m.Payload != fmt.Sprint(next) {
				t.Fatalf("message %d: %+v", next, m)
			}
			next++
		case "pmessage":
			if m.Pattern != "sp*" || m.Channel != "sport" || m.Payload != "goal" {
				t.Fatalf("pmessage: %+v", m)
			}
		}
	}
	if err := sub.Unsubscribe(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Publish(ctx, "news", "late"); got != 0 {
		t.Fatalf("PUBLISH after Unsubscribe reached %d", got)
	}
	if got, _ := db.Publish(ctx, "sport", "still"); got != 1 {
		t.Fatalf("pattern subscription lost: %d", got)
	}
	if m := recv(t, sub); m.Payload != "still" {
		t.Fatalf("after Unsubscribe: %+v", m)
	}
	if err := db.Do(ctx, "SUBSCRIBE", "x").Err(); err == nil {
		t.Fatal("Do(SUBSCRIBE) must point to DB.Subscribe")
	}
	sub.Close()
	if _, ok := <-sub.C; ok {
		t.Fatal("C open after Close")
	}
	if got, _ := db.Publish(ctx, "sport", "gone"); got != 0 {
		t.Fatalf("PUBLISH after Close reached %d", got)
	}
}

// Keyspace notifications through the embedded API.
func TestEmbeddedKeyspaceNotifications(t *testing.T) {
	ctx := context.Background()
	db := open(t, &ordo.Options{InMemory: true, Config: map[string]string{"notify-keyspace-events": "KEA"}})
	sub, err := db.PSubscribe(ctx, "__key*@0__:*")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	db.Do(ctx, "HSET", "user:1", "name", "ann")
	db.Do(ctx, "RENAME", "user:1", "user:2")
	db.Do(ctx, "DEL", "user:2")
	var got []string
	for len(got) < 8 {
		m := recv(t, sub)
		got = append(got, m.Channel+" "+m.Payload)
	}
	want := []string{
		"__keyspace@0__:user:1 hset", "__keyevent@0__:hset user:1",
		"__keyspace@0__:user:1 rename_from", "__keyevent@0__:rename_from user:1",
		"__keyspace@0__:user:2 rename_to", "__keyevent@0__:rename_to user:2",
		"__keyspace@0__:user:2 del", "__keyevent@0__:del user:2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// A subscriber that stops reading is cut off at the output limit, and
// PUBLISH never waits for it.
func TestEmbeddedSlowSubscriber(t *testing.T) {
	ctx := context.Background()
	db := open(t, &ordo.Options{InMemory: true, Config: map[string]string{"client-output-buffer-limit": "pubsub 64kb 32kb 60"}})
	sub, err := db.Subscribe(ctx, "ch")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	payload := strings.Repeat("x", 1024)
	for i := 0; i < 10000; i++ {
		n, err := db.Publish(ctx, "ch", payload)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	for range sub.C { // drain what was delivered before the cut
	}
	if !errors.Is(sub.Err(), ordo.ErrSlowSubscriber) {
		t.Fatalf("Err() = %v, want ErrSlowSubscriber", sub.Err())
	}
}

// Closing the database ends its subscriptions.
func TestEmbeddedSubscriptionDBClose(t *testing.T) {
	ctx := context.Background()
	db, err := ordo.Open(t.TempDir(), &ordo.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := db.Subscribe(ctx, "ch")
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for range sub.C {
	}
	if !errors.Is(sub.Err(), ordo.ErrClosed) {
		t.Fatalf("Err() = %v, want ErrClosed", sub.Err())
	}
	sub.Close()
	if _, err := db.Subscribe(ctx, "ch"); !errors.Is(err, ordo.ErrClosed) {
		t.Fatalf("Subscribe after Close: %v", err)
	}
}

func ExampleDB_Subscribe() {
	ctx := context.Background()
	db, _ := ordo.Open("", &ordo.Options{InMemory: true})
	defer db.Close()
	sub, _ := db.Subscribe(ctx, "news")
	defer sub.Close()
	db.Publish(ctx, "news", "hello")
	m := <-sub.C
	fmt.Println(m.Channel, m.Payload)
	// Output: news hello
}
