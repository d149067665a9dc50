package aof_test

import (
	"context"
	"testing"

	"github.com/ordo-db/ordo"
)

func TestEmbeddedReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, fsync := range []string{"always", "everysec", "no"} {
		db, err := ordo.Open(dir, &ordo.Options{Config: map[string]string{"appendfsync": fsync}})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Do(ctx, "INCR", "opens").Err(); err != nil {
			t.Fatal(err)
		}
		if err := db.Do(ctx, "SET", "ttl", "v", "EX", "1000").Err(); err != nil {
			t.Fatal(err)
		}
		if err := db.Do(ctx, "HSET", "h", "f", fsync).Err(); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	db, err := ordo.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n, err := db.Do(ctx, "GET", "opens").Int(); err != nil || n != 3 {
		t.Fatalf("opens = %d, %v; want 3", n, err)
	}
	if s, err := db.Do(ctx, "HGET", "h", "f").Text(); err != nil || s != "no" {
		t.Fatalf("h.f = %q, %v", s, err)
	}
	if n, err := db.Do(ctx, "TTL", "ttl").Int(); err != nil || n < 990 || n > 1000 {
		t.Fatalf("TTL = %d, %v", n, err)
	}
	// appendonly no: nothing read, nothing written.
	mem, err := ordo.Open(t.TempDir(), &ordo.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	mem.Do(ctx, "SET", "a", "1")
	mem.Close()
}
