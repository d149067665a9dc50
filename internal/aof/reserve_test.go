package aof

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// baseFile returns the contents of the directory's base file.
func baseFile(t *testing.T, dir string) string {
	t.Helper()
	for _, f := range files(t, dir) {
		if strings.HasSuffix(f, ".base.ordo") {
			b, err := os.ReadFile(filepath.Join(dir, "appendonlydir", f))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	t.Fatalf("no base file in %v", files(t, dir))
	return ""
}

// reserveCmd is the directive as the base holds it.
func reserveCmd(keys, expires int) string {
	k, x := strconv.Itoa(keys), strconv.Itoa(expires)
	return "*3\r\n$17\r\nordo-reserve-keys\r\n$" + strconv.Itoa(len(k)) + "\r\n" + k + "\r\n$" + strconv.Itoa(len(x)) + "\r\n" + x + "\r\n"
}

// TestReserveHint: a snapshot (shutdown, SAVE) and a background rewrite
// write each non-empty database's key and TTL counts before its keys,
// and a restart loads the same data through them without an error.
func TestReserveHint(t *testing.T) {
	dir := t.TempDir()
	in := mustOpen(t, dir)
	for i := 0; i < 300; i++ {
		in.do("SET", "k"+strconv.Itoa(i), "v")
		if i%6 == 0 {
			in.do("EXPIRE", "k"+strconv.Itoa(i), "1000")
		}
	}
	in.do("SELECT", "2")
	for i := 0; i < 20; i++ {
		in.do("HSET", "h"+strconv.Itoa(i), "f", "v")
	}
	want := dump(in.e)
	in.close(t, true)
	base := baseFile(t, dir)
	for _, c := range []string{reserveCmd(300, 50), "$6\r\nSELECT\r\n$1\r\n2\r\n" + reserveCmd(20, 0)} {
		if !strings.Contains(base, c) {
			t.Fatalf("snapshot base lacks %q", c)
		}
	}

	in2 := mustOpen(t, dir)
	if got := dump(in2.e); got != want {
		t.Fatalf("after restart\n got: %s\nwant: %s", got, want)
	}
	if strings.Contains(in2.log.String(), "returned") {
		t.Fatalf("the hint ran as a command:\n%s", in2.log)
	}
	in2.do("SET", "k300", "v")
	in2.do("BGREWRITEAOF")
	in2.e.Lock()
	done := in2.a.rwDone
	in2.e.Unlock()
	<-done
	if base := baseFile(t, dir); !strings.Contains(base, reserveCmd(301, 50)) {
		t.Fatalf("rewritten base lacks %q", reserveCmd(301, 50))
	}
	in2.close(t, false)
	in3 := mustOpen(t, dir)
	defer in3.close(t, false)
	if got := in3.do("DBSIZE"); got != ":301\r\n" {
		t.Fatalf("DBSIZE after the rewrite and a restart: %q", got)
	}
}

// TestReserveHintBounded: a hint claiming far more keys than the file
// could hold (a damaged or hand-made base) is capped by the file's size,
// and a malformed one is ignored; the data loads either way.
func TestReserveHintBounded(t *testing.T) {
	for _, args := range [][]string{
		{reserveDirective, "999999999999999", "999999999999999"},
		{reserveDirective, "-5", "x"},
	} {
		dir := t.TempDir()
		in := mustOpen(t, dir)
		in.do("SET", "a", "1")
		in.close(t, true)
		// Replace the base with one whose hint is args, then SET b.
		r := newRecordBuf()
		r.addStrings(args...)
		r.addStrings("SET", "b", "2")
		r.end()
		var base string
		for _, f := range files(t, dir) {
			if strings.HasSuffix(f, ".base.ordo") {
				base = filepath.Join(dir, "appendonlydir", f)
			}
		}
		if err := os.WriteFile(base, append([]byte(fileMagic), r.buf...), 0o644); err != nil {
			t.Fatal(err)
		}
		in2 := mustOpen(t, dir)
		if got := in2.do("MGET", "a", "b"); got != "*2\r\n$-1\r\n$1\r\n2\r\n" {
			t.Fatalf("hint %q: MGET a b = %q", args, got)
		}
		in2.close(t, false)
	}
}
