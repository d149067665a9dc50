package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

func TestStreamAddRange(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("XADD", "s", "1-1", "a", "1", "b", "2")
	d.Do("XADD", "s", "1-2", "a", "3", "b", "4")
	d.Do("XADD", "s", "1-2", "a", "3")
	d.Do("XADD", "s", "1-1", "a", "3")
	d.Do("XADD", "s", "0-0", "a", "3")
	d.Do("XADD", "s2", "0-0", "a", "3")
	d.Do("EXISTS", "s2")
	d.Do("XADD", "s", "1-*", "c", "5")
	d.Do("XADD", "s", "2-*", "c", "5", "d", "-7")
	d.Do("XADD", "s", "2", "x", "longer value here", "y", "12345678901234")
	d.Do("XADD", "s", "5-0", "a", "1", "b", "2", "c", "3")
	d.Do("XADD", "s", "5-18446744073709551615", "a", "1")
	d.Do("XADD", "s", "5-*", "a", "1")
	d.Do("XADD", "s", "6-*", "a", "1")
	for _, bad := range []string{"abc", "1-x", "-", "+", "1-", "-1", "18446744073709551616", "1-2-3", "1--01", " 7", "+7", "007-1", "", "*-1", "1-**"} {
		d.Do("XADD", "bad", bad, "f", "v")
	}
	d.Do("EXISTS", "bad")
	d.Do("XADD", "s", "7-0", "a")
	d.Do("XADD", "s", "7-0")
	d.Do("XADD", "s")
	d.Do("XADD", "s", "NOMKSTREAM")
	d.Do("XADD", "nokey", "NOMKSTREAM", "1-1", "a", "b")
	d.Do("EXISTS", "nokey")
	d.Do("XLEN", "s")
	d.Do("XLEN", "nokey")
	d.Do("XRANGE", "s", "-", "+")
	d.Do("XREVRANGE", "s", "+", "-")
	d.Do("XRANGE", "s", "1", "2")
	d.Do("XRANGE", "s", "(1-1", "(5-0")
	d.Do("XREVRANGE", "s", "(5-0", "(1-1")
	d.Do("XRANGE", "s", "-", "+", "COUNT", "2")
	d.Do("XREVRANGE", "s", "+", "-", "COUNT", "2")
	d.Do("XRANGE", "s", "-", "+", "COUNT", "0")
	d.Do("XRANGE", "s", "-", "+", "COUNT", "-1")
	d.Do("XRANGE", "s", "-", "+", "COUNT")
	d.Do("XRANGE", "s", "-", "+", "COUNT", "x")
	d.Do("XRANGE", "s", "-", "+", "LIMIT", "1")
	d.Do("XRANGE", "s", "(-", "+")
	d.Do("XRANGE", "s", "(0-0", "+")
	d.Do("XRANGE", "s", "(18446744073709551615-18446744073709551615", "+")
	d.Do("XRANGE", "s", "-", "(0-0")
	d.Do("XRANGE", "s", "x", "+")
	d.Do("XRANGE", "s", "-", "y")
	d.Do("XRANGE", "s", "5", "1")
	d.Do("XRANGE", "nokey", "-", "+")
	d.Do("XRANGE", "nokey", "-", "+", "COUNT", "0")
	d.Do("SET", "str", "v")
	d.Do("XADD", "str", "*", "a", "b")
	d.Do("XRANGE", "str", "-", "+")
	d.Do("XLEN", "str")
	d.Do("TYPE", "s")
	d.Do("OBJECT", "ENCODING", "s")
	d.Do("XDEL", "s", "1-2", "99-0", "2-0")
	d.Do("XDEL", "s", "1-2")
	d.Do("XDEL", "s", "bad")
	d.Do("XDEL", "nokey", "1-1")
	d.Do("XRANGE", "s", "-", "+")
	d.Do("XINFO", "STREAM", "s")
	d.Do("XADD", "s", "MAXLEN", "2", "8-0", "a", "b")
	d.Do("XRANGE", "s", "-", "+")
	d.Do("XINFO", "STREAM", "s")
	d.Do("XADD", "s", "MAXLEN", "-1", "9-0", "a", "b")
	d.Do("XADD", "s", "MAXLEN", "x", "9-0", "a", "b")
	d.Do("XADD", "s", "MAXLEN", "1", "MINID", "1", "9-0", "a", "b")
	d.Do("XADD", "s", "LIMIT", "10", "9-0", "a", "b")
	d.Do("XADD", "s", "MAXLEN", "1", "LIMIT", "10", "9-0", "a", "b")
	d.Do("XADD", "s", "MAXLEN", "~", "1", "LIMIT", "-1", "9-0", "a", "b")
	d.Do("XADD", "s", "MINID", "=", "9", "9-0", "a", "b")
	d.Do("XRANGE", "s", "-", "+")
	d.Do("XTRIM", "s")
	d.Do("XTRIM", "s", "FOO", "1")
	d.Do("XTRIM", "s", "MAXLEN", "0")
	d.Do("EXISTS", "s")
	d.Do("XINFO", "STREAM", "s")
	d.Do("XTRIM", "nokey", "MAXLEN", "0")
	d.Do("XTRIM", "str", "MAXLEN", "0")
}

func TestStreamTrimNodes(t *testing.T) {
	d := redistest.NewDiff(t)
	for i := 1; i <= 1000; i++ {
		d.Both("XADD", "s", strconv.Itoa(i)+"-0", "f", strconv.Itoa(i), "g", "x")
	}
	d.Do("XADD", "s", "MAXLEN", "~", "550", "1001-0", "f", "v")
	d.Do("XLEN", "s")
	d.Do("XTRIM", "s", "MAXLEN", "~", "301")
	d.Do("XTRIM", "s", "MINID", "~", "750")
	d.Do("XTRIM", "s", "MINID", "~", "950", "LIMIT", "50")
	d.Do("XTRIM", "s", "MINID", "~", "950", "LIMIT", "150")
	d.Do("XTRIM", "s", "MINID", "802")
	d.Do("XTRIM", "s", "MAXLEN", "=", "150")
	d.Do("XTRIM", "s", "MAXLEN", "150", "LIMIT", "10")
	d.Do("XINFO", "STREAM", "s")
	d.Do("XRANGE", "s", "-", "+", "COUNT", "3")
	d.Do("XREVRANGE", "s", "+", "-", "COUNT", "3")
	// Mixed fields: some entries share the master fields, others not.
	for i := 1; i <= 300; i++ {
		if i%3 == 0 {
			d.Both("XADD", "m", strconv.Itoa(i)+"-1", "other", strconv.Itoa(i*7))
		} else {
			d.Both("XADD", "m", strconv.Itoa(i)+"-1", "f", strconv.Itoa(-i), "g", fmt.Sprint("v", i))
		}
	}
	for i := 5; i <= 300; i += 7 {
		d.Both("XDEL", "m", strconv.Itoa(i)+"-1")
	}
	d.Do("XRANGE", "m", "-", "+")
	d.Do("XREVRANGE", "m", "+", "-")
	d.Do("XRANGE", "m", "100", "110")
	d.Do("XREVRANGE", "m", "210", "150", "COUNT", "10")
	d.Do("XINFO", "STREAM", "m")
	d.Do("XINFO", "STREAM", "m", "FULL", "COUNT", "3")
	// Large values split nodes by bytes.
	big := make([]byte, 1500)
	for i := range big {
		big[i] = 'a' + byte(i%26)
	}
	for i := 1; i <= 20; i++ {
		d.Both("XADD", "b", strconv.Itoa(i)+"-0", "f", string(big))
	}
	d.Do("XINFO", "STREAM", "b")
	d.Do("XTRIM", "b", "MAXLEN", "~", "5")
	d.Do("XLEN", "b")
}

func TestStreamGroups(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("XGROUP", "CREATE", "s", "g", "$")
	d.Do("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
	d.Do("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
	d.Do("TYPE", "s")
	d.Do("XLEN", "s")
	d.Do("XINFO", "GROUPS", "s")
	d.Do("XGROUP", "CREATE", "s", "g2", "0", "ENTRIESREAD", "-2")
	d.Do("XGROUP", "CREATE", "s", "g2", "0", "ENTRIESREAD", "x")
	d.Do("XGROUP", "CREATE", "s", "g2", "0", "FOO")
	d.Do("XGROUP", "CREATE", "s", "g2", "bad")
	d.Do("XGROUP", "CREATE", "s", "g2", "0", "ENTRIESREAD", "5")
	d.Do("XGROUP", "SETID", "s", "nog", "0")
	d.Do("XGROUP", "CREATECONSUMER", "s", "nog", "c")
	d.Do("XGROUP", "DELCONSUMER", "s", "nog", "c")
	d.Do("XGROUP", "DESTROY", "s", "nog")
	d.Do("XGROUP", "DESTROY", "nokey", "g")
	d.Do("XGROUP", "FOO", "s", "g")
	d.Do("XGROUP", "CREATE", "s")
	d.Do("XGROUP", "HELP")
	d.Do("XGROUP")
	d.Do("XINFO", "HELP")
	d.Do("XINFO", "FOO", "s")
	d.Do("XINFO", "STREAM", "nokey")
	d.Do("XINFO", "GROUPS", "nokey")
	d.Do("XINFO", "STREAM", "s", "FULL", "x")
	d.Do("XINFO", "STREAM", "s", "FOO")
	for i := 1; i <= 10; i++ {
		d.Do("XADD", "s", strconv.Itoa(i)+"-0", "n", strconv.Itoa(i))
	}
	d.Do("XINFO", "GROUPS", "s")
	d.Do("XGROUP", "CREATECONSUMER", "s", "g", "alice")
	d.Do("XGROUP", "CREATECONSUMER", "s", "g", "alice")
	d.Do("XREADGROUP", "GROUP", "g", "alice", "COUNT", "3", "STREAMS", "s", ">")
	d.Do("XREADGROUP", "GROUP", "g", "bob", "COUNT", "2", "STREAMS", "s", ">")
	d.Do("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "0")
	d.Do("XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "s", "1-0")
	d.Do("XREADGROUP", "GROUP", "g", "carol", "NOACK", "COUNT", "2", "STREAMS", "s", ">")
	d.Do("XREADGROUP", "GROUP", "g", "carol", "STREAMS", "s", "0")
	d.Do("XINFO", "GROUPS", "s")
	d.Do("XPENDING", "s", "g")
	d.Do("XPENDING", "s", "g2")
	d.Do("XPENDING", "s", "nog")
	d.Do("XPENDING", "nokey", "g")
	d.Do("XPENDING", "s", "g", "-", "+")
	d.Do("XPENDING", "s", "g", "-", "+", "x")
	d.Do("XPENDING", "s", "g", "IDLE", "x", "-", "+", "10")
	d.Do("XPENDING", "s", "g", "IDLE", "0", "-", "+")
	d.DoShape("XPENDING", "s", "g", "-", "+", "10")
	d.DoShape("XPENDING", "s", "g", "-", "+", "10", "bob")
	d.Do("XPENDING", "s", "g", "-", "+", "10", "nobody")
	d.Do("XPENDING", "s", "g", "IDLE", "100000000", "-", "+", "10")
	d.Do("XACK", "s", "g", "1-0", "2-0", "99-0")
	d.Do("XACK", "s", "g", "1-0")
	d.Do("XACK", "s", "g", "bad")
	d.Do("XACK", "s", "nog", "1-0")
	d.Do("XACK", "nokey", "g", "1-0")
	d.Do("XPENDING", "s", "g")
	d.Do("XDEL", "s", "4-0")
	d.Do("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", "0")
	d.Do("XINFO", "GROUPS", "s")
	// XCLAIM
	d.Do("XCLAIM", "s", "g", "dave", "0", "3-0", "4-0", "5-0", "JUSTID")
	d.Do("XPENDING", "s", "g")
	d.Do("XCLAIM", "s", "g", "dave", "0", "5-0", "RETRYCOUNT", "7", "TIME", "1000")
	d.DoShape("XPENDING", "s", "g", "-", "+", "10", "dave") // idle times differ
	d.Do("XCLAIM", "s", "g", "erin", "0", "8-0", "FORCE", "JUSTID")
	d.Do("XCLAIM", "s", "g", "erin", "0", "99-0", "FORCE", "JUSTID")
	d.Do("XCLAIM", "s", "g", "erin", "100000000", "5-0")
	d.Do("XCLAIM", "s", "g", "erin", "x", "5-0")
	d.Do("XCLAIM", "s", "g", "erin", "0", "5-0", "IDLE", "x")
	d.Do("XCLAIM", "s", "g", "erin", "0", "5-0", "TIME", "x")
	d.Do("XCLAIM", "s", "g", "erin", "0", "5-0", "RETRYCOUNT", "x")
	d.Do("XCLAIM", "s", "g", "erin", "0", "5-0", "LASTID", "x")
	d.Do("XCLAIM", "s", "g", "erin", "0", "5-0", "BOGUS")
	d.Do("XCLAIM", "s", "nog", "erin", "0", "5-0")
	d.Do("XCLAIM", "nokey", "g", "erin", "0", "5-0")
	d.Do("XCLAIM", "s", "g", "erin", "0", "5-0", "LASTID", "9-0", "JUSTID")
	d.Do("XINFO", "GROUPS", "s")
	// XAUTOCLAIM, with a deleted entry in the PEL.
	d.Do("XDEL", "s", "6-0")
	d.Do("XAUTOCLAIM", "s", "g", "frank", "0", "0-0", "COUNT", "2")
	d.Do("XAUTOCLAIM", "s", "g", "frank", "0", "0-0", "COUNT", "2", "JUSTID")
	d.Do("XAUTOCLAIM", "s", "g", "frank", "0", "(5-0")
	d.Do("XAUTOCLAIM", "s", "g", "frank", "0", "-", "COUNT", "0")
	d.Do("XAUTOCLAIM", "s", "g", "frank", "0", "-", "COUNT", "x")
	d.Do("XAUTOCLAIM", "s", "g", "frank", "0", "-", "FOO")
	d.Do("XAUTOCLAIM", "s", "g", "frank", "x", "-")
	d.Do("XAUTOCLAIM", "s", "nog", "frank", "0", "-")
	d.Do("XAUTOCLAIM", "s", "g", "frank", "100000000", "-")
	d.Do("XPENDING", "s", "g")
	d.Do("XGROUP", "DELCONSUMER", "s", "g", "frank")
	d.Do("XGROUP", "DELCONSUMER", "s", "g", "frank")
	d.Do("XPENDING", "s", "g")
	d.Do("XGROUP", "SETID", "s", "g", "0", "ENTRIESREAD", "0")
	d.Do("XGROUP", "SETID", "s", "g", "$")
	d.Do("XGROUP", "SETID", "s", "g", "-")
	d.Do("XGROUP", "SETID", "s", "g", "bad")
	d.Do("XGROUP", "SETID", "s", "g", "0", "MKSTREAM")
	d.Do("XINFO", "GROUPS", "s")
	d.Do("XGROUP", "DESTROY", "s", "g2")
	d.Do("XGROUP", "DESTROY", "s", "g2")
	d.Do("XINFO", "GROUPS", "s")
	// XREAD errors
	d.Do("XREAD", "STREAMS", "s")
	d.Do("XREAD", "STREAMS", "s", "s2", "0")
	d.Do("XREAD", "GROUP", "g", "c", "STREAMS", "s", "0")
	d.Do("XREAD", "NOACK", "STREAMS", "s", "0")
	d.Do("XREAD", "STREAMS", "s", ">")
	d.Do("XREAD", "STREAMS", "s", "bad")
	d.Do("XREAD", "COUNT", "x", "STREAMS", "s", "0")
	d.Do("XREAD", "BLOCK", "x", "STREAMS", "s", "0")
	d.Do("XREAD", "BLOCK", "-1", "STREAMS", "s", "0")
	d.Do("XREAD", "FOO", "STREAMS", "s", "0")
	d.Do("XREAD", "COUNT", "2")
	d.Do("XREADGROUP", "STREAMS", "s", ">")
	d.Do("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "$")
	d.Do("XREADGROUP", "GROUP", "nog", "c", "STREAMS", "s", ">")
	d.Do("XREADGROUP", "GROUP", "g", "c", "STREAMS", "nokey", ">")
	d.Do("XREAD", "COUNT", "2", "STREAMS", "s", "nokey", "0", "0")
	d.Do("XREAD", "STREAMS", "s", "nokey", "$", "0")
	d.Do("XREAD", "STREAMS", "nokey", "0")
	d.Do("XREAD", "STREAMS", "str", "0")
	d.Do("XADD", "str", "1-1", "a", "b")
	d.Do("XREAD", "STREAMS", "str", "0")
	// XSETID
	d.Do("XSETID", "s", "1-0")
	d.Do("XSETID", "s", "100-0", "ENTRIESADDED", "1")
	d.Do("XSETID", "s", "100-0", "ENTRIESADDED", "-1")
	d.Do("XSETID", "s", "100-0", "MAXDELETEDID", "200-0")
	d.Do("XSETID", "s", "100-0", "FOO")
	d.Do("XSETID", "nokey", "100-0")
	d.Do("XSETID", "s", "100-0", "ENTRIESADDED", "50", "MAXDELETEDID", "50-0")
	d.Do("XINFO", "STREAM", "s")
	d.Do("XADD", "s", "50-0", "a", "b")
	d.Do("XADD", "s", "100-*", "a", "b")
	d.Do("XSETID", "str", "1")
	d.Do("XINFO", "GROUPS", "s")
	d.Do("XGROUP", "CREATE", "s", "late", "0")
	d.Do("XINFO", "GROUPS", "s")
	d.Do("DEL", "s")
	d.Do("XGROUP", "CREATE", "e", "g", "$", "MKSTREAM")
	d.Do("XINFO", "STREAM", "e")
	d.Do("XINFO", "STREAM", "e", "FULL")
	d.Do("XREADGROUP", "GROUP", "g", "c", "STREAMS", "e", ">")
	d.Do("XREADGROUP", "GROUP", "g", "c", "STREAMS", "e", "0")
}

func TestStreamResp3(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Both("HELLO", "3")
	d.Do("XADD", "s", "1-0", "a", "b")
	d.Do("XADD", "t", "1-0", "a", "b")
	d.Do("XREAD", "STREAMS", "s", "t", "0", "0")
	d.Do("XREAD", "STREAMS", "s", "$")
	d.Do("XINFO", "STREAM", "s")
	d.Do("XGROUP", "CREATE", "s", "g", "0")
	d.Do("XINFO", "GROUPS", "s")
	d.Do("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
	d.Do("XPENDING", "s", "g")
	d.Do("XRANGE", "s", "-", "+", "COUNT", "0")
}

func TestStreamFieldsEncoding(t *testing.T) {
	d := redistest.NewDiff(t)
	vals := []string{"0", "-0", "127", "128", "-1", "4095", "4096", "-4096", "-4097", "32767", "32768", "-32769",
		"8388607", "8388608", "2147483647", "2147483648", "-2147483649", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "01", "1.5", "", " 1", "+1"}
	for i, v := range vals {
		d.Do("XADD", "s", strconv.Itoa(i+1)+"-0", v, v, "k", v)
	}
	d.Do("XRANGE", "s", "-", "+")
	d.Do("XREVRANGE", "s", "+", "-")
}

func TestStreamBlocking(t *testing.T) {
	diffBlocking(t, func(s *scen) {
		// XREAD $ served in blocking order, each with the new entry.
		s.block("a", 1, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
		s.block("b", 2, "XREAD", "BLOCK", "0", "COUNT", "5", "STREAMS", "x", "s", "0", "$")
		s.do("p", "XADD", "s", "1-0", "f", "v")
		s.read("a")
		s.read("b")
		// An entry below the ID waited for does not serve.
		s.block("a", 1, "XREAD", "BLOCK", "0", "STREAMS", "s", "5-0")
		s.do("p", "XADD", "s", "3-0", "f", "v")
		s.noReply("a")
		s.do("p", "XADD", "s", "6-0", "f", "v")
		s.read("a")
		// Consumer group: each blocked reader gets distinct entries.
		s.do("p", "XGROUP", "CREATE", "s", "g", "$")
		s.block("a", 1, "XREADGROUP", "GROUP", "g", "c1", "BLOCK", "0", "STREAMS", "s", ">")
		s.block("b", 2, "XREADGROUP", "GROUP", "g", "c2", "BLOCK", "0", "STREAMS", "s", ">")
		s.do("p", "XADD", "s", "7-0", "f", "v")
		s.read("a")
		s.noReply("b")
		s.do("p", "XADD", "s", "8-0", "f", "v")
		s.read("b")
		s.do("p", "XPENDING", "s", "g")
		// NOACK, then the group is destroyed under a blocked reader.
		s.block("a", 1, "XREADGROUP", "GROUP", "g", "c1", "NOACK", "BLOCK", "0", "STREAMS", "s", ">")
		s.do("p", "XADD", "s", "9-0", "f", "v")
		s.read("a")
		s.block("a", 1, "XREADGROUP", "GROUP", "g", "c1", "BLOCK", "0", "STREAMS", "s", ">")
		s.do("p", "XGROUP", "DESTROY", "s", "g")
		s.read("a")
		// The key deleted or overwritten under a blocked XREADGROUP.
		s.do("p", "XGROUP", "CREATE", "s", "g", "$")
		s.block("a", 1, "XREADGROUP", "GROUP", "g", "c1", "BLOCK", "0", "STREAMS", "s", ">")
		s.do("p", "DEL", "s")
		s.read("a")
		s.do("p", "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
		s.block("a", 1, "XREADGROUP", "GROUP", "g", "c1", "BLOCK", "0", "STREAMS", "s", ">")
		s.block("b", 2, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
		s.do("p", "SET", "s", "string")
		s.read("a")
		s.noReply("b")
		s.do("p", "DEL", "s")
		s.do("p", "XADD", "s", "1-0", "f", "v")
		s.read("b")
		// MULTI: no blocking; served after EXEC.
		s.do("p", "MULTI")
		s.do("p", "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
		s.do("p", "EXEC")
		s.block("a", 1, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
		s.do("p", "MULTI")
		s.do("p", "XADD", "s", "2-0", "f", "1")
		s.do("p", "XADD", "s", "3-0", "f", "2")
		s.do("p", "EXEC")
		s.read("a")
		// Timeouts.
		s.do("a", "XREAD", "BLOCK", "10", "STREAMS", "s", "$")
		s.do("a", "XREADGROUP", "GROUP", "g", "c", "BLOCK", "10", "STREAMS", "s", ">")
		s.do("p", "XGROUP", "CREATE", "s", "g", "$")
		s.do("a", "XREADGROUP", "GROUP", "g", "c", "BLOCK", "10", "STREAMS", "s", ">")
		s.do("p", "EVAL", "return redis.call('XREAD', 'BLOCK', '0', 'STREAMS', 's', '$')", "0")
		s.do("p", "EVAL", "return redis.call('xread', 'COUNT', '1', 'STREAMS', 's', '0')", "0")
		s.conn("a").DoRaw("HELLO", "3")
		s.block("a", 1, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
		s.do("p", "XADD", "s", "4-0", "f", "v")
		s.read("a")
		s.do("a", "XREAD", "BLOCK", "10", "STREAMS", "s", "$")
	})
}

// TestStreamPropagation checks what stream commands log: XADD with the
// generated ID and an exact trim, XREADGROUP/XCLAIM/XAUTOCLAIM as
// XCLAIM ... FORCE JUSTID LASTID, NOACK as XGROUP SETID; and that the log,
// replayed into a real redis-server, rebuilds the same streams.
func TestStreamPropagation(t *testing.T) {
	redistest.RequireRedis(t)
	o := redistest.StartOrdo(t)
	log := captureProp(o)
	c := redistest.Dial(t, o.Addr)
	for i := 0; i < 250; i++ {
		c.Do("XADD", "s", "*", "f", strconv.Itoa(i))
	}
	setup := log()
	c.Do("XADD", "s", "MAXLEN", "~", "120", "5000000000000-1", "a", "b")
	c.Do("XADD", "s", "5000000000000-*", "a", "b")
	c.Do("XTRIM", "s", "MAXLEN", "~", "10")
	c.Do("XTRIM", "s", "MAXLEN", "~", "1000") // nothing trimmed: not logged
	c.Do("XGROUP", "CREATE", "s", "g", "0")
	c.Do("XREADGROUP", "GROUP", "g", "c1", "COUNT", "2", "STREAMS", "s", ">")
	c.Do("XREADGROUP", "GROUP", "g", "c2", "NOACK", "COUNT", "1", "STREAMS", "s", ">")
	c.Do("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", "0") // history: nothing logged
	c.Do("XCLAIM", "s", "g", "c3", "0", "0-0")                  // nothing claimed
	got := log()
	if len(got) < 7 {
		t.Fatalf("propagated: %q", got)
	}
	want := []string{"XADD s MAXLEN = 151 5000000000000-1 a b", "XADD s 5000000000000-2 a b",
		"XTRIM s MAXLEN = 52"}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("propagated #%d: %q, want %q", i, got[i], w)
		}
	}
	if want := "XGROUP CREATE s g 0"; got[3] != want {
		t.Errorf("propagated #3: %q, want %q", got[3], want)
	}
	for _, i := range []int{4, 5} {
		if f := strings.Fields(got[i]); len(f) != 14 || f[0] != "XCLAIM" || f[3] != "c1" || f[6] != "TIME" ||
			f[8] != "RETRYCOUNT" || f[9] != "1" || f[10] != "FORCE" || f[11] != "JUSTID" || f[12] != "LASTID" {
			t.Errorf("propagated #%d: %q", i, got[i])
		}
	}
	if f := strings.Fields(got[6]); len(f) != 5 || strings.Join(f[:4], " ") != "XGROUP CREATECONSUMER s g" {
		t.Errorf("propagated #6: %q", got[6])
	}
	if f := strings.Fields(got[7]); len(f) != 7 || strings.Join(f[:4], " ") != "XGROUP SETID s g" || f[6] != "203" {
		t.Errorf("propagated #7: %q", got[7])
	}
	// Replay the whole log (from scratch) into redis-server.
	c.Do("XAUTOCLAIM", "s", "g", "c4", "0", "0")
	c.Do("XDEL", "s", "5000000000000-1")
	c.Do("XCLAIM", "s", "g", "c5", "0", "5000000000000-1")
	got = append(got, log()...)
	r := redistest.StartRedis(t)
	rc := redistest.Dial(t, r.Addr)
	for _, l := range setup {
		rc.Do(strings.Fields(l)...)
	}
	for _, l := range got {
		if v := rc.Do(strings.Fields(l)...); v.Kind == '-' {
			t.Errorf("redis refused %q: %s", l, v.Str)
		}
	}
	for _, cmd := range [][]string{{"XRANGE", "s", "-", "+"}, {"XINFO", "GROUPS", "s"}, {"XPENDING", "s", "g"},
		{"XPENDING", "s", "g", "IDLE", "0", "-", "+", "100"}} {
		want, have := c.Do(cmd...), rc.Do(cmd...)
		if len(cmd) > 3 { // leave out the idle times
			for _, v := range []*resp.Value{&want, &have} {
				for i := range v.Elems {
					if len(v.Elems[i].Elems) == 4 {
						v.Elems[i].Elems[2] = resp.Value{}
					}
				}
			}
		}
		if want.String() != have.String() {
			t.Errorf("%q:\n ordo:  %s\n redis: %s", cmd, want.String(), have.String())
		}
	}
}

// Keyspace notifications of the stream commands: Redis's event names
// (xadd, xtrim, xdel, xgroup-*, xsetid) in Redis's order.
func TestStreamNotificationsDiff(t *testing.T) {
	redistest.RequireRedis(t)
	script := [][]string{
		{"XADD", "s", "1-0", "f", "v"},
		{"XADD", "s", "MAXLEN", "1", "2-0", "f", "v"},
		{"XADD", "s", "MAXLEN", "5", "3-0", "f", "v"},
		{"XADD", "s", "1-0", "f", "v"},
		{"XADD", "n", "NOMKSTREAM", "*", "f", "v"},
		{"XDEL", "s", "2-0"},
		{"XDEL", "s", "2-0"},
		{"XTRIM", "s", "MAXLEN", "0"},
		{"XTRIM", "s", "MAXLEN", "0"},
		{"XGROUP", "CREATE", "g", "grp", "$", "MKSTREAM"},
		{"XGROUP", "CREATE", "g", "grp", "$"},
		{"XGROUP", "CREATECONSUMER", "g", "grp", "c"},
		{"XGROUP", "CREATECONSUMER", "g", "grp", "c"},
		{"XGROUP", "SETID", "g", "grp", "0"},
		{"XADD", "g", "5-0", "f", "v"},
		{"XREADGROUP", "GROUP", "grp", "c2", "STREAMS", "g", ">"},
		{"XCLAIM", "g", "grp", "c3", "0", "5-0"},
		{"XAUTOCLAIM", "g", "grp", "c4", "0", "0"},
		{"XACK", "g", "grp", "5-0"},
		{"XGROUP", "DELCONSUMER", "g", "grp", "c"},
		{"XGROUP", "DESTROY", "g", "grp"},
		{"XGROUP", "DESTROY", "g", "grp"},
		{"XSETID", "g", "10-0"},
		{"COPY", "g", "g2"},
		{"RENAME", "g2", "g3"},
		{"EXPIRE", "g3", "100"},
		{"MOVE", "g3", "1"},
		{"DEL", "g"},
	}
	keyspaceDiff(t, "KEA", script)
	keyspaceDiff(t, "KEn", script)
	keyspaceDiff(t, "KEt", script)
}

// The keyspace commands on streams: TYPE, OBJECT, COPY, RENAME, MOVE,
// SCAN TYPE, expiry, WRONGTYPE from other families.
func TestStreamKeyspace(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("XADD", "s", "1-0", "a", "1")
	d.Do("XGROUP", "CREATE", "s", "g", "0")
	d.Do("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
	d.Do("TYPE", "s")
	d.Do("OBJECT", "ENCODING", "s")
	d.Do("COPY", "s", "c")
	d.Do("XADD", "c", "2-0", "b", "2") // the copy is independent
	d.Do("XRANGE", "s", "-", "+")
	d.Do("XRANGE", "c", "-", "+")
	d.Do("XINFO", "GROUPS", "c")
	d.Do("XACK", "c", "g", "1-0")
	d.Do("XPENDING", "s", "g")
	d.Do("XPENDING", "c", "g")
	d.Do("RENAME", "c", "r")
	d.Do("XLEN", "r")
	d.Do("MOVE", "r", "2")
	d.Do("SELECT", "2")
	d.Do("XLEN", "r")
	d.Do("SELECT", "0")
	d.Do("SET", "str", "x")
	d.Do("HSET", "h", "f", "v")
	d.DoSorted("SCAN", "0", "TYPE", "stream")
	d.Do("GET", "s")
	d.Do("LPUSH", "s", "x")
	d.Do("HGET", "s", "f")
	d.Do("SADD", "s", "m")
	d.Do("SORT", "s")
	d.Do("ZUNIONSTORE", "z", "1", "s")
	d.Do("SUNION", "s")
	d.Do("PFADD", "s", "x")
	d.Do("SETBIT", "s", "1", "1")
	d.Do("XADD", "h", "*", "a", "b")
	d.Do("XGROUP", "CREATE", "h", "g", "$")
	d.Do("XREADGROUP", "GROUP", "g", "c", "STREAMS", "h", ">")
	d.Do("XINFO", "STREAM", "h")
	d.Do("XACK", "h", "g", "1-0")
	d.Do("XPENDING", "h", "g")
	d.Do("XCLAIM", "h", "g", "c", "0", "1-0")
	d.Do("XAUTOCLAIM", "h", "g", "c", "0", "0")
	d.Do("XDEL", "h", "1-0")
	d.Do("XTRIM", "h", "MAXLEN", "0")
	d.Do("XSETID", "h", "1-0")
	d.Do("PEXPIRE", "s", "1")
	d.Do("DEBUG", "SLEEP", "0.01")
	d.Do("XLEN", "s")
	d.Do("EXISTS", "s")
	d.Do("XADD", "e", "1-0", "a", "b")
	d.Do("XDEL", "e", "1-0")
	d.Do("EXISTS", "e") // an emptied stream stays
	d.Do("XLEN", "e")
	d.Do("XINFO", "STREAM", "e")
	d.DoShape("MEMORY", "USAGE", "e")
}

// A blocked XREADGROUP whose stream goes away with FLUSHALL, FLUSHDB or
// SWAPDB gets Redis's UNBLOCKED error; XREAD keeps waiting.
func TestStreamBlockingFlush(t *testing.T) {
	diffBlocking(t, func(s *scen) {
		for _, flush := range [][]string{{"FLUSHALL"}, {"FLUSHDB"}, {"SWAPDB", "0", "1"}} {
			s.do("p", "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
			s.block("a", 1, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">")
			s.block("b", 2, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
			s.do("p", flush...)
			s.read("a")
			s.noReply("b")
			s.do("p", "FLUSHALL")
			s.do("p", "XADD", "s", "1-0", "f", "v")
			s.read("b")
			s.do("p", "FLUSHALL")
		}
	})
}

// Random stream commands against redis-server, with small nodes so that
// approximate trimming and node splits are exercised: every reply equal.
func TestStreamRandomDiff(t *testing.T) {
	d := redistest.NewDiff(t)
	defer d.Both("CONFIG", "SET", "stream-node-max-entries", "100")
	defer d.Both("CONFIG", "SET", "stream-node-max-bytes", "4096")
	r := rand.New(rand.NewPCG(5, 6))
	for round, cfg := range [][2]string{{"5", "4096"}, {"100", "120"}, {"0", "300"}, {"3", "0"}} {
		d.Both("FLUSHALL")
		d.Both("CONFIG", "SET", "stream-node-max-entries", cfg[0])
		d.Both("CONFIG", "SET", "stream-node-max-bytes", cfg[1])
		ms := 1
		for i := 0; i < 400; i++ {
			key := []string{"s", "t"}[r.IntN(2)]
			val := strings.Repeat("v", r.IntN(40))
			if r.IntN(3) == 0 {
				val = strconv.Itoa(r.IntN(100000) - 50000)
			}
			switch k := r.IntN(14); {
			case k < 6:
				ms += r.IntN(2)
				args := []string{"XADD", key}
				switch r.IntN(5) {
				case 0:
					args = append(args, "MAXLEN", "~", strconv.Itoa(r.IntN(60)))
				case 1:
					args = append(args, "MINID", "~", strconv.Itoa(ms-r.IntN(20)))
				case 2:
					args = append(args, "MAXLEN", strconv.Itoa(r.IntN(60)))
				}
				args = append(args, strconv.Itoa(ms)+"-*", "f", val)
				if r.IntN(3) == 0 {
					args = append(args, "g"+strconv.Itoa(r.IntN(3)), val)
				}
				d.Do(args...)
			case k < 8:
				d.Do("XDEL", key, fmt.Sprintf("%d-%d", r.IntN(ms+1), r.IntN(3)))
			case k < 9:
				d.Do("XTRIM", key, "MAXLEN", "~", strconv.Itoa(r.IntN(80)), "LIMIT", strconv.Itoa(r.IntN(30)))
			case k < 10:
				d.Do("XTRIM", key, "MINID", strconv.Itoa(r.IntN(ms+1)))
			case k < 12:
				d.Do("XRANGE", key, strconv.Itoa(r.IntN(ms+1)), "+", "COUNT", strconv.Itoa(r.IntN(10)))
			case k < 13:
				d.Do("XREVRANGE", key, "+", "("+strconv.Itoa(r.IntN(ms+1)), "COUNT", strconv.Itoa(r.IntN(10)))
			default:
				d.Do("XINFO", "STREAM", key)
			}
			if t.Failed() {
				t.Fatalf("round %d, op %d", round, i)
			}
		}
		d.Do("XRANGE", "s", "-", "+")
		d.Do("XRANGE", "t", "-", "+")
	}
}

func TestStreamDigest(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("XADD", "s", "1-1", "a", "1", "b", "x")
	d.Do("XADD", "s", "2-2", "c", "")
	d.Do("XGROUP", "CREATE", "s", "g", "0")
	d.Do("DEBUG", "DIGEST-VALUE", "s")
	d.Do("DEBUG", "DIGEST")
	d.Do("XDEL", "s", "1-1", "2-2")
	d.Do("DEBUG", "DIGEST-VALUE", "s")
}

// Key-miss notifications of the stream reads.
func TestStreamKeyMissDiff(t *testing.T) {
	redistest.RequireRedis(t)
	keyspaceDiff(t, "KEm", [][]string{
		{"XRANGE", "nosuch", "-", "+"},
		{"XREVRANGE", "nosuch", "+", "-"},
		{"XLEN", "nosuch"},
		{"XREAD", "STREAMS", "nosuch", "0"},
		{"XREAD", "STREAMS", "nosuch", "nosuch2", "0", "$"},
		{"XINFO", "STREAM", "nosuch"},
		{"XPENDING", "nosuch", "g"},
		{"XACK", "nosuch", "g", "1-1"},
		{"XADD", "s", "1-1", "f", "v"},
		{"XREAD", "STREAMS", "s", "nosuch", "0", "0"},
		{"XDEL", "nosuch", "1-1"},
		{"XTRIM", "nosuch", "MAXLEN", "0"},
		{"XCLAIM", "nosuch", "g", "c", "0", "1-1"},
		{"XAUTOCLAIM", "nosuch", "g", "c", "0", "0"},
		{"XSETID", "nosuch", "1-1"},
		{"XGROUP", "CREATE", "nosuch", "g", "$"},
		{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "nosuch", ">"},
	})
}
