package engine_test

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/ds/stream"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// streamView is XINFO STREAM FULL without consumers' seen-time (a
// clock reading of each server).
func streamView(c *redistest.Conn, key string) string {
	v := c.Do("XINFO", "STREAM", key, "FULL", "COUNT", "0")
	blankAfterKey(&v, "seen-time")
	return v.String()
}

func blankAfterKey(v *resp.Value, key string) {
	for i := range v.Elems {
		if i > 0 && v.Elems[i-1].Str == key {
			v.Elems[i] = resp.Value{}
			continue
		}
		blankAfterKey(&v.Elems[i], key)
	}
}

func setupStreams(d *redistest.Diff) {
	for i := 1; i <= 350; i++ {
		if i%4 == 0 {
			d.Both("XADD", "xs", strconv.Itoa(i)+"-1", "other", strconv.Itoa(i*7), "x", strings.Repeat("y", i%50))
		} else {
			d.Both("XADD", "xs", strconv.Itoa(i)+"-1", "f", strconv.Itoa(-i), "g", "v"+strconv.Itoa(i))
		}
	}
	for i := 3; i <= 350; i += 5 {
		d.Both("XDEL", "xs", strconv.Itoa(i)+"-1")
	}
	d.Both("XTRIM", "xs", "MAXLEN", "300")
	d.Both("XADD", "xbig", "1-1", "f", strings.Repeat("abc", 3000))
	d.Both("XADD", "xbig", "2-1", "f", strings.Repeat("abcdefgh", 100))
	d.Both("XGROUP", "CREATE", "xe", "g", "$", "MKSTREAM")
	d.Both("XGROUP", "CREATE", "xe", "123", "0", "ENTRIESREAD", "5")
	d.Both("XADD", "xgr", "1-1", "a", "1")
	d.Both("XADD", "xgr", "2-1", "a", "2")
	d.Both("XADD", "xgr", "3-1", "a", "3")
	d.Both("XGROUP", "CREATE", "xgr", "g1", "0")
	d.Both("XGROUP", "CREATE", "xgr", "g2", "$")
	d.Both("XCLAIM", "xgr", "g1", "alice", "0", "1-1", "2-1", "TIME", "1700000000000", "RETRYCOUNT", "3", "FORCE", "JUSTID")
	d.Both("XCLAIM", "xgr", "g1", "bob", "0", "3-1", "TIME", "1700000000001", "FORCE", "JUSTID")
	d.Both("XGROUP", "CREATECONSUMER", "xgr", "g1", "idle")
	d.Both("XGROUP", "CREATECONSUMER", "xgr", "g2", "42")
	d.Both("XSETID", "xgr", "10-0", "ENTRIESADDED", "10", "MAXDELETEDID", "0-5")
	d.Both("XADD", "xone", "5-5", "k", "v")
}

func TestStreamDumpRestore(t *testing.T) {
	d := redistest.NewDiff(t)
	setupStreams(d)
	for _, key := range []string{"xs", "xbig", "xe", "xgr", "xone"} {
		fromRedis := d.Redis.Do("DUMP", key).Str
		fromOrdo := d.Ordo.Do("DUMP", key).Str
		if key != "xgr" && key != "xe" && fromRedis != fromOrdo { // groups hold clock readings
			t.Errorf("%s: DUMP differs:\n redis %q\n  ordo %q", key, fromRedis, fromOrdo)
		}
		if got := d.Ordo.Do("RESTORE", key+":r", "0", fromRedis); got.Str != "OK" {
			t.Fatalf("%s: Ordo refused Redis's payload: %v", key, got)
		}
		if got := d.Redis.Do("RESTORE", key+":o", "0", fromOrdo); got.Str != "OK" {
			t.Fatalf("%s: Redis refused Ordo's payload: %v", key, got)
		}
		d.Both("RESTORE", key+":o", "0", fromOrdo, "REPLACE")
		d.Both("RESTORE", key+":r", "0", fromRedis, "REPLACE")
		want := streamView(d.Redis, key)
		for _, c := range []*redistest.Conn{d.Redis, d.Ordo} {
			for _, k := range []string{key, key + ":r", key + ":o"} {
				if got := streamView(c, k); got != want {
					t.Errorf("%s on %s:\n got %s\nwant %s", k, c.NetConn().RemoteAddr(), got, want)
				}
			}
		}
		d.Do("XRANGE", key+":o", "-", "+")
		d.Do("XREVRANGE", key+":r", "+", "-", "COUNT", "7")
		d.Do("XADD", key+":r", "99999999-*", "new", "entry")
		d.Do("XLEN", key+":r")
		d.Do("XINFO", "GROUPS", key+":r")
	}
	d.Do("XREADGROUP", "GROUP", "g1", "alice", "STREAMS", "xgr:r", "0")
	d.Do("XACK", "xgr:r", "g1", "1-1")
	d.Do("XPENDING", "xgr:r", "g1")
	// Corrupt payloads are refused, never half-restored.
	p := []byte(d.Redis.Do("DUMP", "xs").Str)
	for _, i := range []int{3, 20, 40, 100, 200, len(p) / 2, len(p) - 12} {
		bad := append([]byte(nil), p...)
		bad[i] ^= 0x5a
		d.Do("RESTORE", "bad", "0", string(bad))
		d.Do("EXISTS", "bad")
	}
}

// A stream in the older RDB_TYPE_STREAM_LISTPACKS (15, Redis 5 and 6)
// restores as redis-server 7.0 restores it: entries added taken as the
// length, the first ID found, the groups' entries-read estimated.
func TestStreamRestoreV1(t *testing.T) {
	d := redistest.NewDiff(t)
	s := stream.New()
	for i := 1; i <= 5; i++ {
		s.Append(stream.ID{Ms: uint64(i), Seq: 0}, [][]byte{[]byte("f"), []byte(strconv.Itoa(i))}, 4096, 3)
	}
	s.Delete(stream.ID{Ms: 1})
	ln := func(b []byte, n uint64) []byte { return append(b, byte(n)) } // lengths below 64
	body := []byte{15}
	body = ln(body, uint64(s.Nodes()))
	s.EachNode(func(m stream.ID, lp []byte) {
		key := binary.BigEndian.AppendUint64(nil, m.Ms)
		key = binary.BigEndian.AppendUint64(key, m.Seq)
		body = append(body, rdbStr(key)...)
		body = append(body, rdbStr(lp)...)
	})
	body = ln(body, s.Length)
	body = ln(ln(body, 5), 0) // last ID 5-0
	body = ln(body, 2)        // two groups
	body = append(body, rdbStr([]byte("at3"))...)
	body = ln(ln(body, 3), 0)
	body = ln(body, 1) // PEL: 3-0, delivered at 1700000000000, twice
	body = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(body, 3), 0)
	body = binary.LittleEndian.AppendUint64(body, 1700000000000)
	body = ln(body, 2)
	body = ln(body, 1) // one consumer owning it
	body = append(body, rdbStr([]byte("c"))...)
	body = binary.LittleEndian.AppendUint64(body, 1700000000000)
	body = ln(body, 1)
	body = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(body, 3), 0)
	body = append(body, rdbStr([]byte("start"))...)
	body = ln(ln(body, 0), 0)
	body = ln(ln(body, 0), 0)
	p := payload(body, 9)
	d.Do("RESTORE", "v1", "0", p)
	d.Do("XRANGE", "v1", "-", "+")
	d.Do("XINFO", "STREAM", "v1")
	d.Do("XINFO", "GROUPS", "v1")
	d.Do("XPENDING", "v1", "at3")
	if a, b := streamView(d.Redis, "v1"), streamView(d.Ordo, "v1"); a != b {
		t.Errorf("XINFO STREAM FULL:\n redis %s\n  ordo %s", a, b)
	}
	// Inconsistent: the consumer owns an ID not in the group's PEL.
	bad := append([]byte(nil), body...)
	i := bytes.LastIndex(bad, []byte("\x01c"))
	bad[i+2+8+1+15] ^= 1
	d.Do("RESTORE", "bad", "0", payload(bad, 9))
	d.Do("EXISTS", "bad")
}
