package ordo_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordo-db/ordo"
	"github.com/ordo-db/ordo/backend"
)

// TestAtomicallyReadsThenWritesAlone: plans that read a counter and write
// it plus one, from many goroutines at once, lose no increment (nothing
// runs between a plan's reads and its writes); View reads as TYPE and
// HGET do.
func TestAtomicallyReadsThenWritesAlone(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	a := db.Backend().(backend.Atomic)
	const workers, each = 8, 200
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				_, err := a.Atomically(ctx, func(v backend.View) ([]backend.Cmd, error) {
					n := 0
					if s, ok := v.HGet("c", "n"); ok {
						n, _ = strconv.Atoi(s)
					}
					return []backend.Cmd{{"HSET", "c", "n", n + 1}}, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n, _ := db.Do(ctx, "HGET", "c", "n").Int64(); n != workers*each {
		t.Fatalf("counter %d, want %d", n, workers*each)
	}

	db.Do(ctx, "SET", "s", "x")
	db.Do(ctx, "ZADD", "z", 1, "m")
	_, err := a.Atomically(ctx, func(v backend.View) ([]backend.Cmd, error) {
		for key, want := range map[string]string{"c": "hash", "s": "string", "z": "zset", "nope": "none"} {
			if got := v.Type(key); got != want {
				t.Errorf("Type(%s) = %s, want %s", key, got, want)
			}
		}
		if _, ok := v.HGet("s", "n"); ok {
			t.Error("HGet on a string found a field")
		}
		if _, ok := v.HGet("c", "other"); ok {
			t.Error("HGet found a missing field")
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAtomicallyErrors: a plan's error and a command refused while
// queued run nothing; a command failing inside EXEC is its Result's Err
// and the others run, as in MULTI/EXEC.
func TestAtomicallyErrors(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	a := db.Backend().(backend.Atomic)
	mine := errors.New("mine")
	if _, err := a.Atomically(ctx, func(backend.View) ([]backend.Cmd, error) {
		return []backend.Cmd{{"SET", "k", "1"}}, mine
	}); err != mine {
		t.Errorf("plan error: %v", err)
	}
	_, err := a.Atomically(ctx, func(backend.View) ([]backend.Cmd, error) {
		return []backend.Cmd{{"SET", "k", "1"}, {"GET"}}, nil
	})
	var e *ordo.Error
	if !errors.As(err, &e) || e.Msg != "ERR wrong number of arguments for 'get' command" {
		t.Errorf("refused command: %v", err)
	}
	if n, _ := db.Do(ctx, "EXISTS", "k").Int64(); n != 0 {
		t.Error("a failed plan or a refused command wrote")
	}
	db.Do(ctx, "SET", "s", "x")
	res, err := a.Atomically(ctx, func(backend.View) ([]backend.Cmd, error) {
		return []backend.Cmd{{"INCR", "s"}, {"SET", "k", "1"}}, nil
	})
	if err != nil || len(res) != 2 || res[0].Err == nil || res[1].Val != "OK" {
		t.Fatalf("EXEC results %+v, %v", res, err)
	}
	if want := db.Do(ctx, "INCR", "s").Err(); res[0].Err.Error() != want.Error() {
		t.Errorf("INCR in EXEC: %v, INCR alone: %v", res[0].Err, want)
	}
	db.Close()
	if _, err := a.Atomically(ctx, func(backend.View) ([]backend.Cmd, error) { return nil, nil }); err != ordo.ErrClosed {
		t.Errorf("after Close: %v", err)
	}
}

// aofRecords returns the payloads of the records of dir's incremental
// log files (internal/aof's format: "ORDOAOF1", then records of a 12-byte
// header, payload length first, little endian, and the payload).
func aofRecords(t *testing.T, dir string) [][]byte {
	t.Helper()
	var recs [][]byte
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(filepath.Base(p), ".incr") {
			return nil
		}
		b, _ := os.ReadFile(p)
		if !bytes.HasPrefix(b, []byte("ORDOAOF1")) {
			t.Fatalf("%s: not a log file", p)
		}
		for b = b[8:]; len(b) >= 12; {
			n := int(binary.LittleEndian.Uint32(b))
			if 12+n > len(b) {
				t.Fatalf("%s: truncated record", p)
			}
			recs = append(recs, b[12:12+n])
			b = b[12+n:]
		}
		return nil
	})
	return recs
}

// TestAtomicallyLogsOneTransaction: the writes reach the log as one
// transaction record, so a crash never replays half of them (two plain
// writes are two records); and they survive a reopen.
func TestAtomicallyLogsOneTransaction(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := ordo.Open(dir, &ordo.Options{Sync: ordo.SyncAlways})
	if err != nil {
		t.Fatal(err)
	}
	a := db.Backend().(backend.Atomic)
	if _, err := a.Atomically(ctx, func(backend.View) ([]backend.Cmd, error) {
		return []backend.Cmd{{"HSET", "obj", "f", "v"}, {"ZADD", "idx", 1, "obj"}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	db.Do(ctx, "HSET", "obj2", "f", "v")
	db.Do(ctx, "ZADD", "idx2", 1, "obj2")
	together := func(a, b string) bool {
		for _, r := range aofRecords(t, dir) {
			if bytes.Contains(r, []byte(a)) {
				return bytes.Contains(r, []byte(b))
			}
		}
		t.Fatalf("%s is not in the log", a)
		return false
	}
	if !together("$3\r\nobj\r\n", "$3\r\nidx\r\n") {
		t.Error("Atomically's writes are not one record")
	}
	if together("$4\r\nobj2\r\n", "$4\r\nidx2\r\n") {
		t.Error("two plain writes share a record: the check above proves nothing")
	}
	db.Close()
	db, err = ordo.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if s, _ := db.Do(ctx, "ZSCORE", "idx", "obj").Text(); s != "1" {
		t.Errorf("after reopen: ZSCORE %q", s)
	}
}

// TestAtomicallyUnderClientPause: writes paused by CLIENT PAUSE WRITE
// wait, then run with what they planned.
func TestAtomicallyUnderClientPause(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	a := db.Backend().(backend.Atomic)
	if err := db.Do(ctx, "CLIENT", "PAUSE", 60000, "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := a.Atomically(ctx, func(v backend.View) ([]backend.Cmd, error) {
			n := 0
			if s, ok := v.HGet("c", "n"); ok {
				n, _ = strconv.Atoi(s)
			}
			return []backend.Cmd{{"HSET", "c", "n", n + 1}}, nil
		})
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // lets it reach EXEC and wait (not an assertion)
	if err := db.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n, _ := db.Do(ctx, "HGET", "c", "n").Int64(); n != 1 {
		t.Errorf("counter %d", n)
	}
}

// TestAtomicallyReplansAfterAWaitedWrite: a plan whose commands wait
// (CLIENT PAUSE WRITE) while another write changes what it read runs
// again on the new data (EXEC aborts on the WATCH): whatever the order,
// the counter ends at 101, never 1.
func TestAtomicallyReplansAfterAWaitedWrite(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	a := db.Backend().(backend.Atomic)
	db.Do(ctx, "HSET", "c", "n", 0)
	if err := db.Do(ctx, "CLIENT", "PAUSE", 60000, "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() {
		_, err := a.Atomically(ctx, func(v backend.View) ([]backend.Cmd, error) {
			s, _ := v.HGet("c", "n")
			n, _ := strconv.Atoi(s)
			return []backend.Cmd{{"HSET", "c", "n", n + 1}}, nil
		})
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // lets it plan and wait first (not an assertion)
	go func() { done <- db.Do(ctx, "HSET", "c", "n", 100).Err() }()
	time.Sleep(20 * time.Millisecond)
	if err := db.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := db.Do(ctx, "HGET", "c", "n").Int64(); n != 101 {
		t.Errorf("counter %d, want 101", n)
	}
}

// TestBackendDoRepliesAsReply: the embedded backend's Do, which parses
// replies straight to their normalized form, gives what Reply.Result
// gives for every RESP2 shape (two databases, the same commands).
func TestBackendDoRepliesAsReply(t *testing.T) {
	ctx := context.Background()
	dbs := []*ordo.DB{openMem(t), openMem(t)}
	for _, db := range dbs {
		db.Do(ctx, "SET", "max", "9223372036854775806")
		db.Do(ctx, "SET", "min", "-9223372036854775807")
		db.Do(ctx, "RPUSH", "l", "a", "", "b\r\nc")
		db.Do(ctx, "XADD", "x", "1-1", "f", "v")
		db.Do(ctx, "HSET", "h", "f", "v")
	}
	b := dbs[0].Backend()
	for _, cmd := range [][]any{
		{"PING"}, {"GET", "nope"}, {"INCR", "max"}, {"GET", "max"}, {"DECR", "min"}, {"DECR", "min"}, {"INCRBY", "n", -5},
		{"LRANGE", "l", 0, -1}, {"LRANGE", "nope", 0, -1}, {"XRANGE", "x", "-", "+"}, {"HGETALL", "h"},
		{"LPOP", "l", 0}, {"GET", "h"}, {"NOSUCHCOMMAND"}, {"ECHO", strings.Repeat("é", 5000)},
		{"SCAN", 0}, {"ZRANGE", "nope", 0, -1, "WITHSCORES"}, {"EVAL", "return {1, 'a', {err='X y'}, {2}}", 0},
		{"BLPOP", "nope", "0.01"},
	} {
		got, gerr := b.Do(ctx, cmd...)
		want, werr := dbs[1].Do(ctx, cmd...).Result()
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || show(got) != show(want) {
			t.Errorf("%v: backend %s %v, Reply %s %v", cmd, show(got), gerr, show(want), werr)
		}
	}
}

// show prints a reply value with its Go types, errors by message.
func show(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = show(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case *ordo.Error:
		return "error(" + x.Msg + ")"
	}
	return fmt.Sprintf("%T(%q)", v, fmt.Sprint(v))
}
