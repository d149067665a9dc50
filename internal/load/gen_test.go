package load_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ordo-db/ordo/internal/load"
	"github.com/ordo-db/ordo/internal/redistest"
	"github.com/ordo-db/ordo/internal/resp"
)

// parseCommands reads RESP commands back.
func parseCommands(t *testing.T, b []byte) [][]string {
	t.Helper()
	r := resp.NewReader(bytes.NewReader(b))
	var out [][]string
	for {
		args, err := r.ReadCommand()
		if err != nil {
			break
		}
		var s []string
		for _, a := range args {
			s = append(s, string(a))
		}
		out = append(out, s)
	}
	return out
}

func gen(t *testing.T, in string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := load.GenMain(args, strings.NewReader(in), &out, &errb)
	return out.String(), errb.String(), code
}

func TestGenCSV(t *testing.T) {
	in := "id,name,age\n1,antirez,38\n2,\"maria, the second\",42\n3,\"say \"\"hi\"\"\r\nbye\",33\n"
	out, errs, code := gen(t, in, "--cmd", "HSET user:{id} name {name} age {age}", "--zadd", "users:by_age {age} {id}")
	if code != 0 || errs != "" {
		t.Fatal(code, errs)
	}
	want := [][]string{
		{"HSET", "user:1", "name", "antirez", "age", "38"},
		{"ZADD", "users:by_age", "38", "1"},
		{"HSET", "user:2", "name", "maria, the second", "age", "42"},
		{"ZADD", "users:by_age", "42", "2"},
		{"HSET", "user:3", "name", "say \"hi\"\r\nbye", "age", "33"},
		{"ZADD", "users:by_age", "33", "3"},
	}
	if got := parseCommands(t, []byte(out)); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// CRLF line ends, empty lines, a last line without a line end.
	out, _, code = gen(t, "id,name\r\n1,\"x\"\r\n\r\n2,y\r\n3,\n4,\"\"", "--cmd", "SET {id} {name}")
	want = [][]string{{"SET", "1", "x"}, {"SET", "2", "y"}, {"SET", "3", ""}, {"SET", "4", ""}}
	if got := parseCommands(t, []byte(out)); code != 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, errs, code := gen(t, "id\n\"open\n", "--cmd", "SET {id} x"); code != 1 || !strings.Contains(errs, "line 2: unterminated quoted field") {
		t.Fatalf("code %d %q", code, errs)
	}
	// Positional fields, no header, tab separated; literal braces.
	out, _, code = gen(t, "k1\tv 1\nk2\t{x}\n", "--no-header", "--sep", "\\t", "--cmd", "SET {0} {{{1}}}")
	want = [][]string{{"SET", "k1", "{v 1}"}, {"SET", "k2", "{{x}}"}}
	if got := parseCommands(t, []byte(out)); code != 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestGenJSONLines(t *testing.T) {
	in := `{"id": 1, "name": "Ann\r\nBee", "age": 25.50, "tags": ["a","b"], "addr": {"city": "Barcelona"}, "ok": true, "n": null}
{"id": "2", "name": "\u00e9\u0000x", "age": -1e3, "tags": [], "addr": {"city": "Rome"}, "ok": false}
`
	out, errs, code := gen(t, in, "--cmd", "HSET user:{id} name {name} age {age} city {addr.city} tags {tags} ok {ok}",
		"--sadd", "city:{addr.city} {id}", "--cmd", "SET first:{id} {tags.0}", "--missing", "empty")
	if code != 0 || errs != "" {
		t.Fatal(code, errs)
	}
	want := [][]string{
		{"HSET", "user:1", "name", "Ann\r\nBee", "age", "25.50", "city", "Barcelona", "tags", `["a","b"]`, "ok", "true"},
		{"SADD", "city:Barcelona", "1"},
		{"SET", "first:1", "a"},
		{"HSET", "user:2", "name", "é\x00x", "age", "-1e3", "city", "Rome", "tags", `[]`, "ok", "false"},
		{"SADD", "city:Rome", "2"},
		{"SET", "first:2", ""},
	}
	if got := parseCommands(t, []byte(out)); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestGenMissingFields(t *testing.T) {
	in := "id,name\n1,a\n2\n3,c\n"
	if _, errs, code := gen(t, in, "--cmd", "SET {id} {name}"); code != 1 || !strings.Contains(errs, `record 2: no field "name"`) {
		t.Fatalf("code %d, %q", code, errs)
	}
	out, errs, code := gen(t, in, "--cmd", "SET {id} {name}", "--missing", "skip")
	if code != 0 || !strings.Contains(errs, "1 records skipped") {
		t.Fatalf("code %d, %q", code, errs)
	}
	if got := parseCommands(t, []byte(out)); !reflect.DeepEqual(got, [][]string{{"SET", "1", "a"}, {"SET", "3", "c"}}) {
		t.Fatalf("%q", got)
	}
	for _, bad := range []string{"SET {id", "SET id}", "SET {}", "SET \"x", ""} {
		if _, _, code := gen(t, in, "--cmd", bad); code == 0 {
			t.Errorf("template %q accepted", bad)
		}
	}
}

// TestGenLoad pipes gen's output into load: records with awkward bytes
// arrive intact in redis-server and ordo-server, with their index.
func TestGenLoad(t *testing.T) {
	var in bytes.Buffer
	in.WriteString("id,name,age\n")
	const n = 2000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&in, "%d,\"name %d, \"\"quoted\"\"\r\n\xff\",%d\n", i, i, i%90)
	}
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "users.csv")
	os.WriteFile(csvPath, in.Bytes(), 0o644)
	out, errs, code := gen(t, "", "--cmd", "HSET user:{id} name {name} age {age}", "--zadd", "users:by_age {age} {id}", csvPath)
	if code != 0 {
		t.Fatal(errs)
	}
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			got := runLoad(t, s.addr, []byte(out))
			if got.code != 0 || got.stdout != summary(0, 2*n) {
				t.Fatalf("%+v", got)
			}
			if v := do(t, s.addr, "HGET", "user:7", "name"); v.Str != "name 7, \"quoted\"\r\n\xff" {
				t.Fatalf("HGET = %q", v.Str)
			}
			want := int64(0)
			for i := 0; i < n; i++ {
				if i%90 >= 30 && i%90 <= 39 {
					want++
				}
			}
			if v := do(t, s.addr, "ZCOUNT", "users:by_age", "30", "39"); v.Int != want {
				t.Fatalf("ZCOUNT = %v", v)
			}
			if v := redistest.Dial(t, s.addr).Do("DBSIZE"); v.Int != n+1 {
				t.Fatalf("DBSIZE = %v", v)
			}
		})
	}
}
