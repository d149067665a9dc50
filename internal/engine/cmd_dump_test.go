package engine_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/aof"
	"github.com/ordo-db/ordo/internal/rdb"
	"github.com/ordo-db/ordo/internal/redistest"
)

// dumpCase builds one key on both servers. exact says DUMP must give the
// same bytes on both (everything but hashtable hashes and sets, whose
// order is the dict's).
type dumpCase struct {
	key   string
	exact bool
	setup func(d *redistest.Diff)
}

func dumpCases() []dumpCase {
	var cases []dumpCase
	str := func(key, v string) {
		cases = append(cases, dumpCase{key, true, func(d *redistest.Diff) { d.Do("SET", key, v) }})
	}
	str("s:short", "hello")
	str("s:empty", "")
	str("s:int", "12345")
	str("s:neg", "-7")
	str("s:int32", "2147483647")
	str("s:int64", "9223372036854775807")
	str("s:zeros", "007")
	str("s:21", "aaaaaaaaaaaaaaaaaaaaa")
	str("s:repeat", strings.Repeat("abcdefgh", 200))
	str("s:random", randomText(3, 500))
	str("s:binary", "\x00\xff\r\n"+strings.Repeat("\x00", 40))
	bulk := func(key string, exact bool, cmd string, n int, elem func(i int) []string) {
		cases = append(cases, dumpCase{key, exact, func(d *redistest.Diff) {
			args := []string{cmd, key}
			for i := 0; i < n; i++ {
				args = append(args, elem(i)...)
				if len(args) > 200 {
					d.Do(args...)
					args = []string{cmd, key}
				}
			}
			if len(args) > 2 {
				d.Do(args...)
			}
		}})
	}
	one := func(f func(i int) string) func(i int) []string {
		return func(i int) []string { return []string{f(i)} }
	}
	bulk("l:small", true, "RPUSH", 5, one(func(i int) string {
		return []string{"a", "1", "-100000", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", ""}[i]
	}))
	bulk("l:big", true, "RPUSH", 3000, one(func(i int) string { return "element:" + strconv.Itoa(i) }))
	bulk("l:huge-elem", true, "RPUSH", 3, one(func(i int) string { return strings.Repeat(strconv.Itoa(i), 9000) }))
	bulk("l:lpush", false, "LPUSH", 2000, one(func(i int) string { return strconv.Itoa(i * 7919) }))
	bulk("set:intset", true, "SADD", 20, one(func(i int) string { return strconv.Itoa(i*i*1000 - 5000) }))
	bulk("set:int64", true, "SADD", 3, one(func(i int) string { return strconv.FormatInt(int64(i)*3000000000, 10) }))
	bulk("set:big-ints", false, "SADD", 700, one(strconv.Itoa))
	bulk("set:strings", false, "SADD", 10, one(func(i int) string { return "m" + strconv.Itoa(i) }))
	bulk("h:small", true, "HSET", 10, func(i int) []string { return []string{"field" + strconv.Itoa(i), strconv.Itoa(i * 1000)} })
	bulk("h:long-value", false, "HSET", 3, func(i int) []string { return []string{"f" + strconv.Itoa(i), strings.Repeat("v", 100)} })
	bulk("h:big", false, "HSET", 300, func(i int) []string { return []string{"field" + strconv.Itoa(i), "value" + strconv.Itoa(i)} })
	bulk("z:small", true, "ZADD", 8, func(i int) []string {
		return []string{[]string{"1", "-2.5", "0.1", "inf", "-inf", "1e100", "3", "123456789012"}[i], "m" + strconv.Itoa(i)}
	})
	bulk("z:big", true, "ZADD", 400, func(i int) []string { return []string{strconv.Itoa(i%37) + ".25", "member" + strconv.Itoa(i)} })
	bulk("z:long-member", true, "ZADD", 2, func(i int) []string { return []string{strconv.Itoa(i), strings.Repeat("m", 70+i)} })
	return cases
}

func randomText(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, seed))
	words := []string{"redis", "ordo", "dump", "restore", "payload", "the", "a", "of"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

// readBack compares everything a client can read of key on both servers.
func readBack(d *redistest.Diff, key string) {
	d.Do("TYPE", key)
	d.Do("OBJECT", "ENCODING", key)
	switch d.Redis.Do("TYPE", key).Str {
	case "string":
		d.Do("GET", key)
	case "list":
		d.Do("LRANGE", key, "0", "-1")
	case "set":
		d.DoSorted("SMEMBERS", key)
	case "hash":
		if d.Redis.Do("OBJECT", "ENCODING", key).Str == "listpack" {
			d.Do("HGETALL", key)
		} else {
			d.DoPairs("HGETALL", key)
		}
	case "zset":
		d.Do("ZRANGE", key, "0", "-1", "WITHSCORES")
	case "stream":
		d.Do("XRANGE", key, "-", "+")
		d.Do("XINFO", "GROUPS", key)
		// The node layout (radix-tree-*) may differ after an AOF replay,
		// which re-packs the entries, as Redis's does without an RDB
		// preamble; everything else must match.
		view := func(c *redistest.Conn) string {
			v := c.Do("XINFO", "STREAM", key)
			blankAfterKey(&v, "radix-tree-keys")
			blankAfterKey(&v, "radix-tree-nodes")
			return v.String()
		}
		if view(d.Redis) != view(d.Ordo) {
			d.Do("XINFO", "STREAM", key) // reports the difference
		}
	}
}

func TestDumpRestoreAcrossRedisAndOrdo(t *testing.T) {
	d := redistest.NewDiff(t)
	for _, c := range dumpCases() {
		c.setup(d)
		fromRedis := d.Redis.Do("DUMP", c.key).Str
		fromOrdo := d.Ordo.Do("DUMP", c.key).Str
		if c.exact && fromRedis != fromOrdo {
			i := 0
			for i < len(fromRedis) && i < len(fromOrdo) && fromRedis[i] == fromOrdo[i] {
				i++
			}
			t.Errorf("%s: DUMP differs from byte %d of %d/%d: redis %q, ordo %q", c.key, i, len(fromRedis), len(fromOrdo),
				fromRedis[max(0, i-8):min(len(fromRedis), i+16)], fromOrdo[max(0, i-8):min(len(fromOrdo), i+16)])
		}
		// Each restores the other's payload, under a new name.
		copyKey := c.key + ":copy"
		if got := d.Ordo.Do("RESTORE", copyKey, "0", fromRedis); got.Str != "OK" {
			t.Fatalf("%s: Ordo refused Redis's payload: %v", c.key, got)
		}
		if got := d.Redis.Do("RESTORE", copyKey, "0", fromOrdo); got.Str != "OK" {
			t.Fatalf("%s: Redis refused Ordo's payload: %v", c.key, got)
		}
		readBack(d, c.key)
		readBack(d, copyKey)
		// The copy reads as the original on each server.
		for _, conn := range []*redistest.Conn{d.Redis, d.Ordo} {
			a, b := dumpOf(t, conn, c.key), dumpOf(t, conn, copyKey)
			if !rdbEqual(t, a, b) {
				t.Errorf("%s: the restored copy differs from the original", c.key)
			}
		}
	}
}

// dumpOf decodes a key's DUMP.
func dumpOf(t *testing.T, c *redistest.Conn, key string) *rdb.Value {
	t.Helper()
	p := []byte(c.Do("DUMP", key).Str)
	if !rdb.VerifyPayload(p) {
		t.Fatalf("DUMP %s: bad payload", key)
	}
	v, err := rdb.DecodeValue(p)
	if err != nil {
		t.Fatalf("DUMP %s: %v", key, err)
	}
	return v
}

func rdbEqual(t *testing.T, a, b *rdb.Value) bool {
	if a.Kind != b.Kind || a.Len() != b.Len() || a.Compact != b.Compact {
		return false
	}
	if a.Kind == rdb.KindString {
		return string(a.Str) == string(b.Str)
	}
	m := map[string]int{}
	key := func(v *rdb.Value, i int) string {
		switch v.Kind {
		case rdb.KindList:
			return strconv.Itoa(i) + "\x00" + string(v.Elems[i])
		case rdb.KindHash:
			return string(v.Elems[i]) + "\x00" + string(v.Elems[i^1])
		case rdb.KindZSet:
			return string(v.Elems[i]) + "\x00" + strconv.FormatFloat(v.Scores[i], 'g', -1, 64)
		}
		return string(v.Elems[i])
	}
	for i := range a.Elems {
		m[key(a, i)]++
	}
	for i := range b.Elems {
		m[key(b, i)]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

// payload wraps a serialized value in DUMP's footer.
func payload(body []byte, version uint16) string {
	b := append([]byte(nil), body...)
	b = binary.LittleEndian.AppendUint16(b, version)
	return string(binary.LittleEndian.AppendUint64(b, rdb.CRC64(0, b)))
}

func TestRestoreErrors(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("SET", "src", "value")
	p := d.Redis.Do("DUMP", "src").Str
	d.Do("DUMP", "nosuchkey")
	d.Do("DUMP")
	d.Do("RESTORE", "k", "0")
	d.Do("RESTORE", "src", "0", p)
	d.Do("RESTORE", "src", "-1", p)
	d.Do("RESTORE", "k", "-1", p)
	d.Do("RESTORE", "k", "abc", p)
	d.Do("RESTORE", "k", "0", p, "BOGUS")
	d.Do("RESTORE", "k", "0", p, "IDLETIME")
	d.Do("RESTORE", "k", "0", p, "IDLETIME", "-1")
	d.Do("RESTORE", "k", "0", p, "IDLETIME", "x")
	d.Do("RESTORE", "k", "0", p, "FREQ", "256")
	d.Do("RESTORE", "k", "0", p, "FREQ", "-1")
	d.Do("RESTORE", "k", "0", p, "FREQ", "5", "IDLETIME", "5")
	d.Do("RESTORE", "k", "0", p, "IDLETIME", "5", "FREQ", "5")
	d.Do("RESTORE", "k", "0", "")
	d.Do("RESTORE", "k", "0", "short")
	// Flipped bits, and a version from the future.
	for _, i := range []int{0, 1, len(p) - 10, len(p) - 9, len(p) - 1} {
		b := []byte(p)
		b[i] ^= 0x01
		d.Do("RESTORE", "k", "0", string(b))
	}
	body := []byte(p[:len(p)-10])
	d.Do("RESTORE", "k", "0", payload(body, 11))
	d.Do("RESTORE", "k", "0", payload(body, 9))
	d.Do("EXISTS", "k")
	d.Do("DEL", "k")
	// Well-formed footers around bad data.
	for _, bad := range [][]byte{
		{},
		{rdb.TypeSet, 0},  // empty set
		{rdb.TypeHash, 0}, // empty hash
		{rdb.TypeList, 0}, // empty linked list
		{rdb.TypeListQuicklist2, 0},
		{42, 1, 'x'},                     // unknown type
		{rdb.TypeString, 5, 'a'},         // truncated string
		{rdb.TypeSet, 2, 1, 'a', 1, 'a'}, // duplicate member
		{rdb.TypeZSet2, 1, 1, 'a', 0, 0, 0, 0, 0, 0, 0xf8, 0x7f}, // NaN score
	} {
		d.Do("RESTORE", "k", "0", payload(bad, 10))
		d.Do("EXISTS", "k")
	}
	// Types Ordo knows only by name.
	d.Do("SET", "n", "1")
	d.Do("RESTORE", "n", "0", p)
	d.Do("GET", "n")
	// REPLACE, ABSTTL, expired TTLs.
	d.Do("SADD", "set", "a")
	d.Do("RESTORE", "set", "0", p, "REPLACE")
	d.Do("TYPE", "set")
	d.Do("GET", "set")
	d.Do("RESTORE", "ttl", "100000", p)
	d.Do("TTL", "ttl")
	d.Do("RESTORE", "abs", "1", p, "ABSTTL")
	d.Do("EXISTS", "abs")
	d.Do("RESTORE", "ttl", "1", p, "REPLACE", "ABSTTL")
	d.Do("EXISTS", "ttl")
	d.Do("RESTORE", "far", "99999999999999", p, "ABSTTL", "IDLETIME", "10")
	d.Do("TTL", "far")
	d.Do("RESTORE", "f", "0", p, "FREQ", "7", "REPLACE")
	d.Do("GET", "f")
}

// TestRestoreCorruptPayloads feeds Ordo mutations of valid payloads of
// every type (with a correct checksum): each is either restored or
// refused with Redis's error, never half-created, and the server keeps
// serving. (Redis itself is not sent these: without
// sanitize-dump-payload it may accept some of them.)
func TestRestoreCorruptPayloads(t *testing.T) {
	d := redistest.NewDiff(t)
	var bodies [][]byte
	for _, c := range dumpCases() {
		c.setup(d)
		p := d.Redis.Do("DUMP", c.key).Str
		bodies = append(bodies, []byte(p[:len(p)-10]))
	}
	r := rand.New(rand.NewPCG(7, 11))
	o := d.Ordo
	for i := 0; i < 3000; i++ {
		b := append([]byte(nil), bodies[r.IntN(len(bodies))]...)
		switch r.IntN(3) {
		case 0:
			b[r.IntN(len(b))] ^= byte(1 << r.IntN(8))
		case 1:
			b = b[:r.IntN(len(b))]
		default:
			b[r.IntN(len(b))] = byte(r.Uint32())
			b[r.IntN(len(b))] = byte(r.Uint32())
		}
		key := fmt.Sprintf("corrupt:%d", i)
		got := o.Do("RESTORE", key, "0", payload(b, 10))
		exists := o.Do("EXISTS", key).Int
		switch {
		case got.Str == "OK" && exists == 1:
			o.Do("DEL", key)
		case got.Str == "ERR Bad data format" && exists == 0:
		default:
			t.Fatalf("mutation %d: RESTORE replied %v, EXISTS %d", i, got, exists)
		}
	}
	d.Do("PING")
}

// ---- payloads in the encodings of older Redis versions ----

// ziplist builds a ziplist as Redis 6's ziplistPush writes one.
func ziplist(elems ...string) []byte {
	zl := make([]byte, 10)
	prev := 0
	tail := 10
	for _, e := range elems {
		var ent []byte
		if prev < 254 {
			ent = append(ent, byte(prev))
		} else {
			ent = append(ent, 254)
			ent = binary.LittleEndian.AppendUint32(ent, uint32(prev))
		}
		if v, err := strconv.ParseInt(e, 10, 64); err == nil && strconv.FormatInt(v, 10) == e && len(e) <= 32 {
			switch {
			case v >= 0 && v <= 12:
				ent = append(ent, 0xF1+byte(v))
			case v >= -128 && v <= 127:
				ent = append(ent, 0xFE, byte(v))
			case v >= -32768 && v <= 32767:
				ent = binary.LittleEndian.AppendUint16(append(ent, 0xC0), uint16(v))
			case v >= -(1<<23) && v < 1<<23:
				ent = append(ent, 0xF0, byte(v), byte(v>>8), byte(v>>16))
			case v >= -(1<<31) && v < 1<<31:
				ent = binary.LittleEndian.AppendUint32(append(ent, 0xD0), uint32(v))
			default:
				ent = binary.LittleEndian.AppendUint64(append(ent, 0xE0), uint64(v))
			}
		} else {
			n := len(e)
			switch {
			case n < 64:
				ent = append(ent, byte(n))
			case n < 16384:
				ent = append(ent, 0x40|byte(n>>8), byte(n))
			default:
				ent = binary.BigEndian.AppendUint32(append(ent, 0x80), uint32(n))
			}
			ent = append(ent, e...)
		}
		tail = len(zl)
		zl = append(zl, ent...)
		prev = len(ent)
	}
	zl = append(zl, 0xFF)
	binary.LittleEndian.PutUint32(zl, uint32(len(zl)))
	binary.LittleEndian.PutUint32(zl[4:], uint32(tail))
	binary.LittleEndian.PutUint16(zl[8:], uint16(len(elems)))
	return zl
}

// zipmap builds a zipmap (the hash encoding of RDB versions before 4).
func zipmap(pairs ...string) []byte {
	zm := []byte{byte(len(pairs) / 2)}
	ln := func(n int) {
		if n < 254 {
			zm = append(zm, byte(n))
		} else {
			zm = binary.LittleEndian.AppendUint32(append(zm, 254), uint32(n))
		}
	}
	for i := 0; i < len(pairs); i += 2 {
		ln(len(pairs[i]))
		zm = append(zm, pairs[i]...)
		ln(len(pairs[i+1]))
		zm = append(zm, 2) // two bytes of free space
		zm = append(zm, pairs[i+1]...)
		zm = append(zm, 0, 0)
	}
	return append(zm, 0xFF)
}

// rdbStr is a raw RDB string (length-prefixed; lengths below 16384).
func rdbStr(s []byte) []byte {
	var b []byte
	if len(s) < 64 {
		b = append(b, byte(len(s)))
	} else {
		b = append(b, 0x40|byte(len(s)>>8), byte(len(s)))
	}
	return append(b, s...)
}

func rdbStrs(ss ...string) []byte {
	var b []byte
	for _, s := range ss {
		b = append(b, rdbStr([]byte(s))...)
	}
	return b
}

func intsetBlob(width int, vals ...int64) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(width))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vals)))
	for _, v := range vals {
		switch width {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// TestRestoreOlderEncodings restores values in the encodings of RDB
// versions before 10 (ziplists, zipmaps, linked lists, textual scores)
// into both servers and compares what they read back.
func TestRestoreOlderEncodings(t *testing.T) {
	d := redistest.NewDiff(t)
	long := strings.Repeat("L", 300)
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	one := func(t byte, rest ...[]byte) []byte { return cat(append([][]byte{{t}}, rest...)...) }
	payloads := map[string][]byte{
		"list-ziplist":   one(rdb.TypeListZiplist, rdbStr(ziplist("a", "7", "-1", "300", "-70000", "10000000", "5000000000", long, ""))),
		"list-quicklist": one(rdb.TypeListQuicklist, []byte{2}, rdbStr(ziplist("x", "12", "13")), rdbStr(ziplist("y", long))),
		"list-linked":    one(rdb.TypeList, []byte{3}, rdbStrs("p", "q", "123")),
		"hash-ziplist":   one(rdb.TypeHashZiplist, rdbStr(ziplist("f1", "v1", "n", "42", "big", long))),
		"hash-zipmap":    one(rdb.TypeHashZipmap, rdbStr(zipmap("a", "1", "bb", "two", "c", ""))),
		"hash-plain":     one(rdb.TypeHash, []byte{2}, rdbStrs("f", "v", "g", "5")),
		"zset-ziplist":   one(rdb.TypeZSetZiplist, rdbStr(ziplist("c", "-3", "a", "1", "b", "2.5"))),
		"zset-text": one(rdb.TypeZSet, []byte{4}, rdbStrs("m1"), []byte{3}, []byte("1.5"),
			rdbStrs("m2"), []byte{254}, rdbStrs("m3"), []byte{255}, rdbStrs("m4"), []byte{2}, []byte("-2")),
		"zset2-small": one(rdb.TypeZSet2, []byte{2}, rdbStrs("x"), binary.LittleEndian.AppendUint64(nil, 0x3ff8000000000000),
			rdbStrs("y"), binary.LittleEndian.AppendUint64(nil, 0xc000000000000000)),
		"set-plain-ints": one(rdb.TypeSet, []byte{3}, rdbStrs("3", "1", "2")),
		"set-plain-strs": one(rdb.TypeSet, []byte{2}, rdbStrs("3", "x")),
		"intset16":       one(rdb.TypeSetIntset, rdbStr(intsetBlob(2, -5, 1, 300))),
		"intset32":       one(rdb.TypeSetIntset, rdbStr(intsetBlob(4, -70000, 1))),
		"intset64":       one(rdb.TypeSetIntset, rdbStr(intsetBlob(8, -1, 5000000000))),
		"string-int8":    {rdb.TypeString, 0xC0, 0x85},
		"string-int16":   {rdb.TypeString, 0xC1, 0x34, 0x12},
		"string-int32":   {rdb.TypeString, 0xC2, 0x78, 0x56, 0x34, 0x92},
	}
	names := make([]string, 0, len(payloads))
	for k := range payloads {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, version := range []uint16{6, 9, 10} {
			d.Do("RESTORE", name, "0", payload(payloads[name], version), "REPLACE")
			readBack(d, name)
		}
	}
}

// TestRestoreIsLogged: RESTORE goes to the AOF with an absolute expiry
// (ABSTTL), so a restart replays it to the same key and expiry.
func TestRestoreIsLogged(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("COMMAND", "INFO", "DUMP", "RESTORE")
	d.Do("HSET", "h", "a", "1", "b", "2")
	p := d.Redis.Do("DUMP", "h").Str
	o := redistest.StartOrdo(t, "appendonly", "yes")
	pers, err := aof.Open(o.Engine, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	c := redistest.Dial(t, o.Addr)
	c.Do("RESTORE", "k", "100000", p)
	c.Do("RESTORE", "k2", "0", p)
	c.Do("RESTORE", "k2", "0", p, "REPLACE", "IDLETIME", "5")
	c.Do("SET", "gone", "x")
	c.Do("RESTORE", "gone", "1", p, "REPLACE", "ABSTTL") // expired: deletes
	at := c.Do("PEXPIRETIME", "k").Int
	if err := pers.Close(false); err != nil {
		t.Fatal(err)
	}
	o2 := redistest.StartOrdo(t, "appendonly", "yes", "dir", o.Engine.Config.Get("dir"))
	pers2, err := aof.Open(o2.Engine, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pers2.Close(false) })
	c2 := redistest.Dial(t, o2.Addr)
	if got := c2.Do("PEXPIRETIME", "k").Int; got != at || at <= 0 {
		t.Errorf("PEXPIRETIME after replay: %d, before: %d", got, at)
	}
	if got := c2.Do("HGET", "k2", "b").Str; got != "2" {
		t.Errorf("k2 after replay: %q", got)
	}
	if got := c2.Do("EXISTS", "gone").Int; got != 0 {
		t.Errorf("expired RESTORE REPLACE left the key after replay")
	}
}

// TestDumpLZFMatchesRedis compares DUMP bytes of strings of many sizes and
// degrees of redundancy: Ordo's LZF compressor must emit Redis's bytes.
func TestDumpLZFMatchesRedis(t *testing.T) {
	d := redistest.NewDiff(t)
	r := rand.New(rand.NewPCG(42, 43))
	for i := 0; i < 300; i++ {
		n := 21 + r.IntN(3000)
		if i%10 == 0 {
			n = 21 + r.IntN(40000)
		}
		alpha := 1 + r.IntN(60)
		b := make([]byte, n)
		for j := range b {
			if j > 8 && r.IntN(4) == 0 { // repeat an earlier run
				b[j] = b[j-1-r.IntN(min(j, 300))]
				continue
			}
			b[j] = byte('!' + r.IntN(alpha))
		}
		key := "lzf:" + strconv.Itoa(i)
		d.Do("SET", key, string(b))
		if rd, od := d.Redis.Do("DUMP", key).Str, d.Ordo.Do("DUMP", key).Str; rd != od {
			t.Errorf("DUMP of a %d-byte string (alphabet %d) differs", n, alpha)
		}
	}
}
