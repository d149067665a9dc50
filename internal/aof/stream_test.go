package aof

import (
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/resp"
)

// streamState renders what a user sees of the streams s and e: entries,
// metadata, groups, consumers and pending entries (with their delivery
// times and counts), leaving out only consumers' seen-time, which a
// replay sets anew, as in Redis.
func streamState(in *inst) string {
	var out []string
	for _, cmd := range [][]string{
		{"XINFO", "STREAM", "s", "FULL"}, {"XINFO", "STREAM", "e", "FULL"}, {"XINFO", "STREAM", "s"},
		{"XINFO", "GROUPS", "s"}, {"XPENDING", "s", "g"}, {"TYPE", "e"},
	} {
		v, _, _ := resp.ParseReply([]byte(in.do(cmd...)))
		blankAfter(&v, "seen-time")
		out = append(out, strings.Join(cmd, " ")+" -> "+v.String())
	}
	return strings.Join(out, "\n")
}

func blankAfter(v *resp.Value, key string) {
	for i := range v.Elems {
		if i > 0 && v.Elems[i-1].Str == key {
			v.Elems[i] = resp.Value{}
			continue
		}
		blankAfter(&v.Elems[i], key)
	}
}

func TestStreamRestart(t *testing.T) {
	for _, snapshot := range []bool{false, true} {
		dir := t.TempDir()
		in := mustOpen(t, dir)
		for i := 0; i < 300; i++ {
			in.do("XADD", "s", "*", "f", "v", "n", strings.Repeat("x", i%7))
		}
		in.do("XADD", "s", "MAXLEN", "~", "150", "*", "a", "b")
		in.do("XTRIM", "s", "MINID", "~", "0-1")
		in.do("XDEL", "s", in.do("XADD", "s", "*", "del", "me")[5:18])
		in.do("XGROUP", "CREATE", "s", "g", "0")
		in.do("XGROUP", "CREATE", "s", "g2", "$", "ENTRIESREAD", "3")
		in.do("XREADGROUP", "GROUP", "g", "c1", "COUNT", "5", "STREAMS", "s", ">")
		in.do("XREADGROUP", "GROUP", "g", "c2", "NOACK", "COUNT", "5", "STREAMS", "s", ">")
		in.do("XREADGROUP", "GROUP", "g", "c3", "COUNT", "5", "STREAMS", "s", ">")
		in.do("XGROUP", "CREATECONSUMER", "s", "g", "idle")
		in.do("XAUTOCLAIM", "s", "g", "c2", "0", "0", "COUNT", "2")
		in.do("XCLAIM", "s", "g", "c4", "0", "0-1", "FORCE")
		in.do("XGROUP", "CREATE", "e", "g", "$", "MKSTREAM")
		in.do("XSETID", "s", "99999999999999-5", "ENTRIESADDED", "1000", "MAXDELETEDID", "2-0")
		want := streamState(in)
		if !strings.Contains(want, "c3") || !strings.Contains(want, "idle") {
			t.Fatalf("setup went wrong:\n%s", want)
		}
		in.close(t, snapshot)
		in2 := mustOpen(t, dir)
		if got := streamState(in2); got != want {
			t.Fatalf("snapshot=%v: after restart\n got: %s\nwant: %s", snapshot, got, want)
		}
		in2.close(t, false)
	}
}
