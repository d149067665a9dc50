package aof

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordo-db/ordo/internal/engine"
	"github.com/ordo-db/ordo/internal/resp"
)

// logBuf collects log lines.
type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	fmt.Fprintf(&l.b, format+"\n", args...)
	l.mu.Unlock()
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type inst struct {
	e   *engine.Engine
	a   *AOF
	log *logBuf
	cl  *engine.Client
}

func open(t testing.TB, dir string, settings ...string) (*inst, error) {
	t.Helper()
	cfg := engine.NewConfig()
	all := append([]string{"dir", dir, "appendfsync", "always"}, settings...)
	for i := 0; i+1 < len(all); i += 2 {
		if err := cfg.Set(all[i], all[i+1], true); err != nil {
			t.Fatal(err)
		}
	}
	e := engine.New(cfg)
	lb := &logBuf{}
	a, err := Open(e, lb.logf)
	if err != nil {
		e.Close()
		return &inst{log: lb}, err
	}
	cl := e.NewClient("embedded")
	cl.Authenticated = true
	return &inst{e: e, a: a, log: lb, cl: cl}, nil
}

func mustOpen(t testing.TB, dir string, settings ...string) *inst {
	t.Helper()
	in, err := open(t, dir, settings...)
	if err != nil {
		t.Fatalf("open: %v\nlog:\n%s", err, in.log)
	}
	return in
}

func (in *inst) close(t testing.TB, snapshot bool) {
	t.Helper()
	if err := in.a.Close(snapshot); err != nil {
		t.Fatal(err)
	}
	in.e.Close()
}

// do runs a command as a client would (sync hook included) and returns
// the raw reply.
func (in *inst) do(args ...string) string {
	var w resp.Writer
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	in.e.Lock()
	in.e.Call(in.cl, b, &w)
	h := in.e.SyncHook
	in.e.Unlock()
	if h != nil {
		h(context.Background())
	}
	return string(w.Buf)
}

// dump renders the whole data set canonically: per key its type, its
// elements (sorted except for lists and strings) and its expiry.
func dump(e *engine.Engine) string { return dumpAfter(e, 0) }

// dumpAfter is dump leaving out keys that expire before cutoff (unix ms),
// so that two dumps taken at different times can be compared.
func dumpAfter(e *engine.Engine, cutoff int64) string {
	e.Lock()
	defer e.Unlock()
	var lines []string
	now := engine.NowMs()
	for i, db := range e.DBs() {
		db.Each(now, func(k string, v engine.Value, at int64) bool {
			if at >= 0 && at < cutoff {
				return true
			}
			var desc string
			if v.Obj() == nil {
				desc = "string " + v.Str()
			} else {
				t := v.Obj().(engine.Typed)
				var elems []string
				t.Rewrite(k, func(args [][]byte) {
					for _, a := range args[2:] {
						elems = append(elems, string(a))
					}
				})
				if t.TypeName() != "list" {
					sort.Strings(elems)
				}
				desc = t.TypeName() + " " + strings.Join(elems, ",")
			}
			lines = append(lines, fmt.Sprintf("%d %q %s ttl=%d", i, k, desc, at))
			return true
		})
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func files(t testing.TB, dir string) []string {
	ents, _ := os.ReadDir(filepath.Join(dir, "appendonlydir"))
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// readRecords scans the records in buf (a file's body after its magic),
// calling fn with each record's payload and its commands, %q-formatted.
func readRecords(t *testing.T, buf []byte, fn func(p []byte, cmds []string)) {
	t.Helper()
	data := append([]byte(fileMagic), buf...)
	sc := newScanner(bytes.NewReader(data), "x", int64(len(data)))
	if err := sc.header(); err != nil {
		t.Fatal(err)
	}
	for {
		p, err := sc.next()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatal(err)
			}
			return
		}
		var cmds []string
		if err := parseCommands(p, func(args [][]byte) error {
			cmds = append(cmds, fmt.Sprintf("%q", args))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		fn(p, cmds)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	r := newRecordBuf()
	r.add([][]byte{[]byte("SET"), []byte("k"), []byte("v\r\n\x00")})
	r.add([][]byte{[]byte("DEL"), {}})
	r.end()
	r.add([][]byte{[]byte("PING")})
	r.end()
	var got []string
	readRecords(t, r.buf, func(_ []byte, cmds []string) { got = append(got, cmds...) })
	want := `["SET" "k" "v\r\n\x00"]|["DEL" ""]|["PING"]`
	if strings.Join(got, "|") != want {
		t.Fatalf("got %s", strings.Join(got, "|"))
	}
}

// The rewrite frames the snapshot's serialized keys (RESP commands) into
// records of about recordBytes, cut between commands, so replay gets
// every command whole and in order, however big the chunk; one command
// bigger than a record gets a record of its own.
func TestFrameCutsBetweenCommands(t *testing.T) {
	var payload []byte
	var want []string
	for i := range 20000 {
		args := [][]byte{[]byte("SET"), []byte(fmt.Sprintf("key:%d", i)), bytes.Repeat([]byte{'v'}, i%97)}
		if i == 7000 {
			args[2] = bytes.Repeat([]byte{'\r'}, 3*recordBytes) // bigger than a record
		}
		payload = resp.AppendCommandBytes(payload, args)
		want = append(want, fmt.Sprintf("%q", args))
	}
	r := newRecordBuf()
	r.addStrings("SELECT", "3") // an open record, as the rewrite's SELECT leaves it
	want = append([]string{fmt.Sprintf("%q", [][]byte{[]byte("SELECT"), []byte("3")})}, want...)
	r.frame(payload)
	var got []string
	records := 0
	readRecords(t, r.buf, func(p []byte, cmds []string) {
		records++
		got = append(got, cmds...)
		if len(p) > recordBytes+64 && len(cmds) > 1 {
			t.Errorf("a record of %d bytes holds %d commands", len(p), len(cmds))
		}
	})
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("%d commands replayed, want %d (or not in order)", len(got), len(want))
	}
	if records < (len(payload)-3*recordBytes)/recordBytes { // cut at about recordBytes
		t.Fatalf("%d records for %d bytes", records, len(payload))
	}
}

func TestRestartReplaysLogAndSnapshot(t *testing.T) {
	for _, snapshot := range []bool{false, true} {
		dir := t.TempDir()
		in := mustOpen(t, dir)
		in.do("SET", "a", "1")
		in.do("INCR", "n")
		in.do("INCR", "n")
		in.do("HSET", "h", "f", "v", "g", "w")
		in.do("SADD", "s", "x", "y", "z")
		in.do("SREM", "s", "y")
		in.do("ZADD", "z", "1.5", "m", "-inf", "n")
		in.do("SELECT", "3")
		in.do("SET", "in3", "three")
		in.do("MULTI")
		in.do("INCR", "tx")
		in.do("INCRBYFLOAT", "f", "1.1")
		in.do("EXEC")
		in.do("SET", "gone", "x")
		in.do("DEL", "gone")
		want := dump(in.e)
		in.close(t, snapshot)
		in2 := mustOpen(t, dir)
		if got := dump(in2.e); got != want {
			t.Fatalf("snapshot=%v: after restart\n got: %s\nwant: %s", snapshot, got, want)
		}
		if snapshot {
			if !strings.Contains(strings.Join(files(t, dir), " "), ".base.ordo") {
				t.Fatalf("no base file after a snapshot: %v", files(t, dir))
			}
		}
		in2.close(t, false)
	}
}

func TestTTLSurvivesRestart(t *testing.T) {
	for _, snapshot := range []bool{false, true} {
		dir := t.TempDir()
		in := mustOpen(t, dir)
		in.do("SET", "long", "v", "PX", "100000")
		in.do("SET", "short", "v", "PX", "150")
		in.do("HSET", "h", "f", "v")
		in.do("PEXPIRE", "h", "100000")
		in.do("SET", "plain", "v")
		at := in.do("PEXPIRETIME", "long")
		hat := in.do("PEXPIRETIME", "h")
		in.close(t, snapshot)
		time.Sleep(200 * time.Millisecond)
		in2 := mustOpen(t, dir)
		if got := in2.do("PEXPIRETIME", "long"); got != at {
			t.Errorf("snapshot=%v: long expires at %q, want %q", snapshot, got, at)
		}
		if got := in2.do("PEXPIRETIME", "h"); got != hat {
			t.Errorf("snapshot=%v: h expires at %q, want %q", snapshot, got, hat)
		}
		if got := in2.do("EXISTS", "short", "plain"); got != ":1\r\n" {
			t.Errorf("snapshot=%v: EXISTS short plain = %q, want :1 (short expired)", snapshot, got)
		}
		if got := in2.do("TTL", "plain"); got != ":-1\r\n" {
			t.Errorf("TTL plain = %q", got)
		}
		in2.close(t, false)
	}
}

// writeLog makes a directory whose single incremental file holds n SET
// records; it returns the file's path and the record end offsets.
func writeLog(t *testing.T, n int) (dir, path string, ends []int64) {
	dir = t.TempDir()
	in := mustOpen(t, dir)
	for i := 0; i < n; i++ {
		in.do("SET", fmt.Sprintf("k%d", i), strings.Repeat("v", i%7))
	}
	in.close(t, false)
	path = filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.ordo")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := newScanner(bytes.NewReader(data), path, int64(len(data)))
	if err := sc.header(); err != nil {
		t.Fatal(err)
	}
	ends = append(ends, sc.off)
	for {
		if _, err := sc.next(); err != nil {
			break
		}
		ends = append(ends, sc.off)
	}
	return dir, path, ends
}

func keysLoaded(in *inst) int {
	in.e.Lock()
	defer in.e.Unlock()
	n := 0
	for _, db := range in.e.DBs() {
		n += db.Len()
	}
	return n
}

// prefixKeys is how many SET records end at or before off.
func prefixKeys(ends []int64, off int64) int {
	n := 0
	for _, e := range ends[1:] {
		if e <= off {
			n++
		}
	}
	return n
}

func TestTruncatedTailAtEveryOffset(t *testing.T) {
	dir, path, ends := writeLog(t, 25)
	orig, _ := os.ReadFile(path)
	for cut := 0; cut < len(orig); cut++ {
		if err := os.WriteFile(path, orig[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := open(t, dir)
		if err != nil {
			t.Fatalf("cut at %d: refused: %v", cut, err)
		}
		valid := int64(0)
		for _, e := range ends {
			if e <= int64(cut) {
				valid = e
			}
		}
		want := prefixKeys(ends, int64(cut))
		if got := keysLoaded(in); got != want {
			t.Fatalf("cut at %d: %d keys loaded, want %d", cut, got, want)
		}
		if int64(cut) != valid {
			msg := fmt.Sprintf("Truncating the AOF at offset %d, dropping %d bytes", valid, int64(cut)-valid)
			if cut < len(fileMagic) {
				msg = "Truncating the AOF at offset 0"
			}
			if !strings.Contains(in.log.String(), msg) {
				t.Fatalf("cut at %d: log lacks %q:\n%s", cut, msg, in.log)
			}
		}
		// The tail is gone and writing continues after the valid prefix.
		in.do("SET", "after", "1")
		in.close(t, false)
		in2 := mustOpen(t, dir)
		if got := keysLoaded(in2); got != want+1 {
			t.Fatalf("cut at %d: %d keys after the second start, want %d", cut, got, want+1)
		}
		in2.close(t, false)
		// Restore the layout for the next round.
		os.RemoveAll(filepath.Join(dir, "appendonlydir"))
		os.MkdirAll(filepath.Join(dir, "appendonlydir"), 0o755)
		m := manifest{incrs: []string{"appendonly.aof.1.incr.ordo"}, seqs: []int{1}}
		os.WriteFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.ordo-manifest"), m.encode(), 0o644)
	}
}

func TestZeroFilledTailIsTorn(t *testing.T) {
	dir, path, ends := writeLog(t, 10)
	orig, _ := os.ReadFile(path)
	os.WriteFile(path, append(orig, make([]byte, 4096)...), 0o644)
	in := mustOpen(t, dir)
	if got := keysLoaded(in); got != 10 {
		t.Fatalf("%d keys", got)
	}
	if !strings.Contains(in.log.String(), fmt.Sprintf("offset %d, dropping 4096 bytes", ends[len(ends)-1])) {
		t.Fatalf("log: %s", in.log)
	}
	in.close(t, false)
}

func TestBitFlipsAtManyOffsets(t *testing.T) {
	dir, path, ends := writeLog(t, 40)
	orig, _ := os.ReadFile(path)
	man := filepath.Join(dir, "appendonlydir", "appendonly.aof.ordo-manifest")
	manData, _ := os.ReadFile(man)
	r := rand.New(rand.NewPCG(1, 2))
	lastStart := ends[len(ends)-2]
	for pos := 0; pos < len(orig); pos++ {
		bad := append([]byte(nil), orig...)
		bad[pos] ^= 1 << r.IntN(8)
		os.WriteFile(path, bad, 0o644)
		os.WriteFile(man, manData, 0o644)
		// The record holding the flipped byte.
		rec := 0
		for i := 1; i < len(ends); i++ {
			if int64(pos) >= ends[i-1] && int64(pos) < ends[i] {
				rec = i
			}
		}
		recStart := int64(0)
		if rec > 0 {
			recStart = ends[rec-1]
		}
		in, err := open(t, dir)
		switch {
		case pos < len(fileMagic):
			if err == nil || !strings.Contains(err.Error(), "offset 0") {
				t.Fatalf("flip at %d (magic): err = %v", pos, err)
			}
		case recStart == lastStart && int64(pos) >= recStart+hdrLen:
			// Damage in the last record is indistinguishable from a torn
			// write: the prefix is loaded and the tail cut, with a log line.
			if err != nil {
				t.Fatalf("flip at %d (last record): refused: %v", pos, err)
			}
			if got := keysLoaded(in); got != len(ends)-2 {
				t.Fatalf("flip at %d: %d keys", pos, got)
			}
			if !strings.Contains(in.log.String(), fmt.Sprintf("offset %d", recStart)) {
				t.Fatalf("flip at %d: log: %s", pos, in.log)
			}
			in.close(t, false)
		default:
			if err == nil {
				in.close(t, false)
				t.Fatalf("flip at %d: loaded a corrupt file", pos)
			}
			want := fmt.Sprintf("%s: record", path)
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprintf("at offset %d ", recStart)) ||
				!strings.Contains(err.Error(), "aof-load-corrupt-tail") {
				t.Fatalf("flip at %d: error %q should name %s and offset %d", pos, err, want, recStart)
			}
			// The flag loads the valid prefix.
			os.WriteFile(path, bad, 0o644)
			in, err := open(t, dir, "aof-load-corrupt-tail", "yes")
			if err != nil {
				t.Fatalf("flip at %d with aof-load-corrupt-tail: %v", pos, err)
			}
			if got := keysLoaded(in); got != prefixKeys(ends, recStart) {
				t.Fatalf("flip at %d: %d keys, want %d", pos, got, prefixKeys(ends, recStart))
			}
			if !strings.Contains(in.log.String(), fmt.Sprintf("offset %d", recStart)) {
				t.Fatalf("flip at %d: log: %s", pos, in.log)
			}
			in.close(t, false)
		}
	}
}

func TestCorruptManifestRefused(t *testing.T) {
	dir := t.TempDir()
	in := mustOpen(t, dir)
	in.do("SET", "a", "1")
	in.close(t, true)
	man := filepath.Join(dir, "appendonlydir", "appendonly.aof.ordo-manifest")
	data, _ := os.ReadFile(man)
	for pos := 0; pos < len(data); pos++ {
		bad := append([]byte(nil), data...)
		bad[pos] ^= 0x20
		os.WriteFile(man, bad, 0o644)
		if in, err := open(t, dir); err == nil {
			// A flip that keeps the manifest valid is impossible (CRC),
			// except in the CRC's hex case ('a' vs 'A' is not valid hex
			// for us either).
			in.close(t, false)
			t.Fatalf("flip at %d: corrupt manifest accepted", pos)
		}
	}
}

func TestRandomBytesNeverPanic(t *testing.T) {
	dir, path, _ := writeLog(t, 5)
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		b := make([]byte, r.IntN(300))
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		if r.IntN(2) == 0 {
			b = append([]byte(fileMagic), b...)
		}
		os.WriteFile(path, b, 0o644)
		in, err := open(t, dir, "aof-load-corrupt-tail", "yes")
		if err == nil {
			in.close(t, false)
		}
	}
}

// TestRewriteWhileWriting runs background rewrites while writers change
// many keys (sets, deletes, expiries, transactions, FLUSHDB, SWAPDB, MOVE,
// COPY, RENAME), then checks that the files replay to exactly the live
// data set.
func TestRewriteWhileWriting(t *testing.T) {
	dir := t.TempDir()
	in := mustOpen(t, dir, "appendfsync", "no")
	const nkeys = 20000
	for i := 0; i < nkeys; i += 100 {
		args := []string{"MSET"}
		for j := i; j < i+100; j++ {
			args = append(args, fmt.Sprintf("k%d", j), fmt.Sprint(j))
		}
		in.do(args...)
	}
	for i := 0; i < 300; i++ {
		in.do("HSET", fmt.Sprintf("h%d", i), "a", "1", "b", "2")
		in.do("SADD", fmt.Sprintf("s%d", i), "x", "y")
	}
	// Big collections (1024 elements or more), which the rewrite copies under
	// the lock and serializes after it; the writers keep changing them,
	// and two carry a TTL.
	for i := 0; i < 4; i++ {
		for j := 0; j < 3000; j += 100 {
			l, s, h, z := []string{"RPUSH", fmt.Sprintf("bl%d", i)}, []string{"SADD", fmt.Sprintf("bs%d", i)}, []string{"HSET", fmt.Sprintf("bh%d", i)}, []string{"ZADD", fmt.Sprintf("bz%d", i)}
			for m := j; m < j+100; m++ {
				l = append(l, fmt.Sprint(m))
				s = append(s, fmt.Sprint(m))
				h = append(h, fmt.Sprint(m), fmt.Sprint(m*m))
				z = append(z, fmt.Sprint(m%7), fmt.Sprint(m))
			}
			in.do(l...)
			in.do(s...)
			in.do(h...)
			in.do(z...)
		}
	}
	in.do("EXPIRE", "bl0", "100000")
	in.do("EXPIRE", "bs1", "100000")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var ops atomic.Int64
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			cl := in.e.NewClient("embedded")
			cl.Authenticated = true
			r := rand.New(rand.NewPCG(uint64(w), 9))
			run := func(args ...string) {
				var wr resp.Writer
				b := make([][]byte, len(args))
				for i, a := range args {
					b[i] = []byte(a)
				}
				in.e.Lock()
				in.e.Call(cl, b, &wr)
				in.e.Unlock()
			}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				k := fmt.Sprintf("k%d", r.IntN(nkeys+500))
				switch r.IntN(18) {
				case 17:
					b := fmt.Sprint(r.IntN(4))
					switch r.IntN(5) {
					case 0:
						run("RPUSH", "bl"+b, fmt.Sprint(n))
					case 1:
						run("LPOP", "bl"+b)
					case 2:
						run("SADD", "bs"+b, fmt.Sprint(n))
					case 3:
						run("HSET", "bh"+b, fmt.Sprint(r.IntN(4000)), fmt.Sprint(n))
					case 4:
						run("ZINCRBY", "bz"+b, "2", fmt.Sprint(r.IntN(4000)))
					}
				case 14:
					run("RPUSH", fmt.Sprintf("l%d", r.IntN(200)), fmt.Sprint(n), "x")
				case 15:
					run("LPOP", fmt.Sprintf("l%d", r.IntN(200)))
				case 16:
					run("ZINCRBY", fmt.Sprintf("z%d", r.IntN(200)), "1.5", fmt.Sprint(r.IntN(20)))
				case 0, 1, 2:
					run("INCR", k)
				case 3:
					run("SET", k, fmt.Sprint(n))
				case 4:
					run("DEL", k)
				case 5:
					run("PEXPIRE", k, fmt.Sprint(1+r.IntN(30)))
				case 6:
					run("EXPIRE", k, "1000")
				case 7:
					run("HINCRBY", fmt.Sprintf("h%d", r.IntN(300)), "a", "1")
				case 8:
					run("SADD", fmt.Sprintf("s%d", r.IntN(300)), fmt.Sprint(n))
				case 9:
					run("MULTI")
					run("INCR", "tx1")
					run("INCR", "tx2")
					run("EXEC")
				case 10:
					run("RENAME", k, fmt.Sprintf("k%d", r.IntN(nkeys)))
				case 11:
					run("SELECT", fmt.Sprint(1+r.IntN(2)))
					run("SET", k, "other")
					if r.IntN(50) == 0 {
						run("FLUSHDB")
					}
					run("SELECT", "0")
				case 12:
					if r.IntN(20) == 0 {
						run("SWAPDB", "1", "2")
					}
					run("MOVE", k, "1")
				case 13:
					run("COPY", k, fmt.Sprintf("c%d", r.IntN(100)), "DB", "2", "REPLACE")
				}
				ops.Add(1)
				if n%64 == 0 {
					time.Sleep(50 * time.Microsecond)
				}
			}
		}(w)
	}
	for round := 0; round < 3; round++ {
		time.Sleep(20 * time.Millisecond)
		if err := in.a.BackgroundRewrite(round == 1); err != nil {
			t.Fatal(err)
		}
		in.e.Lock()
		done := in.a.rwDone
		in.e.Unlock()
		before := ops.Load()
		<-done
		if during := ops.Load() - before; during < 100 {
			t.Logf("round %d: only %d writes during the rewrite", round, during)
		}
		if !in.a.lastRewriteOK.Load() || !in.a.lastBgsaveOK.Load() {
			t.Fatalf("rewrite failed:\n%s", in.log)
		}
	}
	close(stop)
	wg.Wait()
	if got := in.do("GET", "tx1"); got != in.do("GET", "tx2") {
		t.Fatalf("transaction halves differ: %q", got)
	}
	cutoff := engine.NowMs() + 60000
	want := dumpAfter(in.e, cutoff)
	// Close without snapshot: the last base plus its incremental file.
	in.close(t, false)
	in2 := mustOpen(t, dir)
	got := dumpAfter(in2.e, cutoff)
	in2.close(t, false)
	if got != want {
		t.Fatal(diffLines(got, want))
	}
	if strings.Count(in.log.String(), "rewrite finished successfully") < 3 {
		t.Fatalf("log:\n%s", in.log)
	}
}

func TestAppendonlyNo(t *testing.T) {
	dir := t.TempDir()
	in := mustOpen(t, dir, "appendonly", "no")
	in.do("SET", "a", "1")
	in.close(t, true)
	if fs := files(t, dir); len(fs) != 0 {
		t.Fatalf("appendonly no wrote files: %v", fs)
	}
	in = mustOpen(t, dir, "appendonly", "no")
	if got := in.do("DBSIZE"); got != ":0\r\n" {
		t.Fatalf("DBSIZE %q", got)
	}
	// SAVE still writes a snapshot, which appendonly yes loads.
	in.do("SET", "b", "2")
	if got := in.do("SAVE"); got != "+OK\r\n" {
		t.Fatalf("SAVE: %q", got)
	}
	in.close(t, false)
	in = mustOpen(t, dir)
	if got := in.do("GET", "b"); got != "$1\r\n2\r\n" {
		t.Fatalf("GET b = %q", got)
	}
	in.close(t, false)
}

func TestPersistenceCommands(t *testing.T) {
	dir := t.TempDir()
	in := mustOpen(t, dir)
	defer in.close(t, false)
	in.do("SET", "a", "1")
	before := in.do("LASTSAVE")
	time.Sleep(1100 * time.Millisecond)
	if got := in.do("BGREWRITEAOF"); got != "+Background append only file rewriting started\r\n" {
		t.Fatalf("BGREWRITEAOF: %q", got)
	}
	in.e.Lock()
	done := in.a.rwDone
	in.e.Unlock()
	<-done
	if got := in.do("LASTSAVE"); got == before {
		t.Fatalf("LASTSAVE did not move: %q", got)
	}
	if got := in.do("BGSAVE"); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", got)
	}
	in.e.Lock()
	done = in.a.rwDone
	in.e.Unlock()
	<-done
	if got := in.do("SAVE"); got != "+OK\r\n" {
		t.Fatalf("SAVE: %q", got)
	}
	info := in.a.InfoPersistence()
	for _, f := range []string{"aof_enabled:1\r\n", "aof_rewrite_in_progress:0\r\n", "aof_last_bgrewrite_status:ok\r\n",
		"aof_last_write_status:ok\r\n", "rdb_changes_since_last_save:0\r\n", "rdb_bgsave_in_progress:0\r\n", "loading:0\r\n",
		"aof_rewrites:3\r\n"} {
		if !strings.Contains(info, f) {
			t.Errorf("INFO lacks %q:\n%s", f, info)
		}
	}
	in.do("SET", "b", "2")
	if got := in.do("DEBUG", "RELOAD"); got != "+OK\r\n" {
		t.Fatalf("DEBUG RELOAD: %q", got)
	}
	if got := in.do("MGET", "a", "b"); got != "*2\r\n$1\r\n1\r\n$1\r\n2\r\n" {
		t.Fatalf("after DEBUG RELOAD: %q", got)
	}
}

func TestAutoRewrite(t *testing.T) {
	dir := t.TempDir()
	in := mustOpen(t, dir, "auto-aof-rewrite-min-size", "4096", "auto-aof-rewrite-percentage", "100", "appendfsync", "everysec")
	defer in.close(t, false)
	for i := 0; i < 400; i++ {
		in.do("SET", "same", strings.Repeat("x", 50))
	}
	deadline := time.Now().Add(5 * time.Second)
	for in.a.rewrites.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no automatic rewrite:\n%s", in.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// diffLines describes the first differences between two dumps.
func diffLines(got, want string) string {
	g, w := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(got, "\n") {
		g[l] = true
	}
	for _, l := range strings.Split(want, "\n") {
		w[l] = true
	}
	var out []string
	for l := range g {
		if !w[l] && len(out) < 10 {
			out = append(out, "only replayed: "+l)
		}
	}
	for l := range w {
		if !g[l] && len(out) < 20 {
			out = append(out, "only live:     "+l)
		}
	}
	sort.Strings(out)
	return fmt.Sprintf("replayed data set differs from the live one (%d vs %d keys):\n%s", len(g), len(w), strings.Join(out, "\n"))
}

// A rewrite encodes every key of the data set: encoding a string key, with
// or without an expiry, must not allocate (it was most of a rewrite's
// garbage, and the collections it caused paused clients under load).
func TestEncodeStringNoAllocs(t *testing.T) {
	enc := newEncoder()
	buf := make([]byte, 0, 4096)
	v := engine.StringValue("some value")
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		buf, err = enc.appendValue(buf[:0], "key:000123", v, -1)
		if err == nil {
			buf, err = enc.appendValue(buf, "key:000124", v, 1893456000000)
		}
		if err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("appendValue allocates %v times per two keys", allocs)
	}
	want := "*3\r\n$3\r\nSET\r\n$10\r\nkey:000123\r\n$10\r\nsome value\r\n" +
		"*5\r\n$3\r\nSET\r\n$10\r\nkey:000124\r\n$10\r\nsome value\r\n$4\r\nPXAT\r\n$13\r\n1893456000000\r\n"
	if string(buf) != want {
		t.Fatalf("encoded %q, want %q", buf, want)
	}
}

// Changes closed before a writer takes them share one record (a header
// per change made the log a quarter bigger than Redis's): a batch of
// commands under one lock is one record, the next batch another, and a
// restart replays both. Cutting the file inside the second record loses
// that record only (its changes were never acknowledged: replies wait
// for the write).
func TestChangesJoinOneRecord(t *testing.T) {
	dir := t.TempDir()
	in := mustOpen(t, dir)
	batch := func(cmds ...[]string) {
		var w resp.Writer
		in.e.Lock()
		for _, c := range cmds {
			b := make([][]byte, len(c))
			for i, a := range c {
				b[i] = []byte(a)
			}
			in.e.Call(in.cl, b, &w)
		}
		in.e.Unlock()
		in.e.SyncHook(context.Background())
	}
	batch([]string{"SET", "a", "1"}, []string{"INCR", "n"}, []string{"SADD", "s", "x", "y"},
		[]string{"MULTI"}, []string{"INCR", "tx"}, []string{"HSET", "h", "f", "v"}, []string{"EXEC"})
	first := dump(in.e)
	batch([]string{"SET", "b", "2"}, []string{"INCR", "n"})
	want := dump(in.e)
	in.close(t, false)
	path := filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.ordo")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]string
	readRecords(t, data[len(fileMagic):], func(p []byte, cmds []string) { recs = append(recs, cmds) })
	if len(recs) != 2 || len(recs[0]) != 6 || len(recs[1]) != 2 {
		t.Fatalf("records %q, want two: SELECT and 5 changes, then 2", recs)
	}
	in2 := mustOpen(t, dir)
	if got := dump(in2.e); got != want {
		t.Fatalf("after restart\n got: %s\nwant: %s", got, want)
	}
	in2.close(t, false)
	if err := os.WriteFile(path, data[:len(data)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	in3 := mustOpen(t, dir)
	if got := dump(in3.e); got != first {
		t.Fatalf("after a torn second record\n got: %s\nwant: %s", got, first)
	}
	in3.close(t, false)
}
