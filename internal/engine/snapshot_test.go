package engine

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
)

// snapTester runs commands on an engine, with the lock, as one client.
type snapTester struct {
	t  *testing.T
	e  *Engine
	cl *Client
	w  *resp.Writer
}

func newSnapTester(t *testing.T) *snapTester {
	e := New(nil)
	t.Cleanup(e.Close)
	return &snapTester{t: t, e: e, cl: e.NewClient("embedded"), w: &resp.Writer{Proto: 2}}
}

func (st *snapTester) do(args ...string) string {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	st.w.Reset()
	st.e.Lock()
	st.e.Call(st.cl, b, st.w)
	st.e.Unlock()
	if len(st.w.Buf) > 0 && st.w.Buf[0] == '-' {
		st.t.Fatalf("%q: %s", args, st.w.Buf)
	}
	return string(st.w.Buf)
}

// digestOfRDB loads an RDB file into a new engine and returns DEBUG
// DIGEST of it and its key count.
func digestOfRDB(t *testing.T, file []byte) (string, int) {
	e := New(nil)
	defer e.Close()
	e.Lock()
	defer e.Unlock()
	st, err := e.LoadRDB(bytes.NewReader(file))
	if err != nil {
		t.Fatalf("loading the snapshot: %v", err)
	}
	return e.datasetDigest(), st.Keys
}

// checkSnapshot walks s, writes it, and fails unless the file holds the
// dataset of ref (an RDB written when s began); it returns the keys
// WriteRDB reports written.
func checkSnapshot(t *testing.T, s *Snapshot, ref []byte) int {
	t.Helper()
	s.Walk()
	var got bytes.Buffer
	n, err := s.WriteRDB(&got)
	if err != nil {
		t.Fatal(err)
	}
	want, wantKeys := digestOfRDB(t, ref)
	have, haveKeys := digestOfRDB(t, got.Bytes())
	if have != want || haveKeys != wantKeys || n != wantKeys {
		t.Errorf("snapshot digest %s with %d keys (%d written), want %s with %d keys (the dataset when it began)", have, haveKeys, n, want, wantKeys)
	}
	return n
}

// A snapshot taken in slices while every kind of change goes on (writes to
// keys walked and not yet walked, deletions, new keys, expiry, big
// collections, RENAME, MOVE, SWAPDB, FLUSHDB, FLUSHALL) is the dataset of
// the instant it began: the same digest as the file written at that
// instant under the lock, and no key twice (LoadRDB rejects duplicates).
func TestSnapshotIsPointInTime(t *testing.T) {
	for _, flushAll := range []bool{false, true} {
		st := newSnapTester(t)
		rng := rand.New(rand.NewPCG(1, 2))
		for db := 0; db < 3; db++ {
			st.do("SELECT", strconv.Itoa(db))
			for i := 0; i < 3000; i++ {
				k := "k" + strconv.Itoa(i)
				switch i % 5 {
				case 0, 1:
					st.do("SET", k, "v"+strconv.Itoa(i))
				case 2:
					st.do("HSET", k, "f", strconv.Itoa(i), "g", "x")
				case 3:
					st.do("RPUSH", k, "a", "b", strconv.Itoa(i))
				case 4:
					st.do("SET", k, strconv.Itoa(i), "EX", "100000")
				}
			}
			big := make([]string, 0, 4002)
			big = append(big, "ZADD", "bigz")
			for i := 0; i < 2000; i++ {
				big = append(big, strconv.Itoa(i), "m"+strconv.Itoa(i))
			}
			st.do(big...)
			big[0], big[1] = "SADD", "bigs"
			st.do(big...)
		}
		st.do("SELECT", "0")
		st.e.Lock()
		var ref bytes.Buffer
		if _, err := st.e.WriteRDB(&ref); err != nil {
			t.Fatal(err)
		}
		s := st.e.BeginSnapshot()
		st.e.Unlock()
		slice := func(db int) {
			st.e.Lock()
			if d := s.dbs[db]; !d.complete {
				s.walkSlice(d)
			}
			st.e.Unlock()
		}
		churn := func(n int) {
			for i := 0; i < n; i++ {
				k := "k" + strconv.Itoa(rng.IntN(3500))
				switch rng.IntN(10) {
				case 0:
					st.do("SET", k, "new")
				case 1:
					st.do("DEL", k)
				case 2:
					st.do("APPEND", "fresh"+k, "x")
				case 3:
					st.do("EXPIRE", k, "5000")
				case 4:
					st.do("PERSIST", k)
				case 5:
					st.do("ZADD", "bigz", "1", "churn"+k)
				case 6:
					st.do("SREM", "bigs", "m"+strconv.Itoa(rng.IntN(2000)))
				case 7:
					st.do("RENAME", "bigz", "bigz2")
					st.do("RENAME", "bigz2", "bigz")
				case 8:
					st.do("MOVE", k, "2")
				case 9:
					st.do("MULTI")
					st.do("SET", k, "in-multi")
					st.do("LPUSH", "k3", "x")
					st.do("EXEC")
				}
			}
		}
		slice(0)
		slice(0)
		churn(300)
		slice(0)
		slice(1)
		st.do("SWAPDB", "0", "2")
		churn(300)
		slice(0)
		slice(2)
		st.do("SELECT", "1")
		if flushAll {
			st.do("FLUSHALL")
		} else {
			st.do("FLUSHDB")
		}
		churn(300)
		st.do("SELECT", "0")
		churn(300)
		t.Logf("flushall=%v", flushAll)
		checkSnapshot(t, s, ref.Bytes())
		st.e.Lock()
		if len(st.e.snaps) != 0 {
			t.Errorf("the engine still tracks %d snapshots", len(st.e.snaps))
		}
		st.e.Unlock()
	}
}

// Deleting most keys while a snapshot walks them would shrink the keys
// dict, and a shrunk table makes the walk's cursor return keys again; the
// snapshot keeps the table as it is until it ends, so the file still
// holds each key once, as of T0, and the dict shrinks afterwards.
func TestSnapshotWhileKeysAreDeleted(t *testing.T) {
	st := newSnapTester(t)
	const n = 20000
	for i := 0; i < n; i++ {
		st.do("SET", "k"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	st.e.Lock()
	var ref bytes.Buffer
	if _, err := st.e.WriteRDB(&ref); err != nil {
		t.Fatal(err)
	}
	s := st.e.BeginSnapshot()
	st.e.Unlock()
	for i := 0; i < 8; i++ { // about a fifth of the keys walked
		st.e.Lock()
		s.walkSlice(s.dbs[0])
		st.e.Unlock()
	}
	for i := 0; i < n; i++ {
		if i%20 != 0 {
			st.do("DEL", "k"+strconv.Itoa(i))
		}
	}
	st.e.Lock()
	buckets := st.e.dbs[0].keys.Buckets()
	st.e.Unlock()
	checkSnapshot(t, s, ref.Bytes())
	st.do("DEL", "k0")
	// The shrink is incremental, as Redis's: each command moves a bucket
	// (or skips a few empty ones) until the smaller table is all there is.
	after := buckets
	for i := 0; i < 100000 && after >= buckets; i++ {
		st.do("EXISTS", "k20")
		st.e.Lock()
		after = st.e.dbs[0].keys.Buckets()
		st.e.Unlock()
	}
	if after >= buckets {
		t.Errorf("the keys dict did not shrink after the snapshot: %d buckets, %d during it", after, buckets)
	}
}
