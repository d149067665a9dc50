package embedded

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Where the memory goes: TestMeasureMemory (MEASURE=1) loads each store
// alone in a child process, as TestSideBySide's memory rows do, and
// splits its RSS after a collection into the Go heap in use, free heap
// the runtime has not returned to the OS yet, the runtime's own memory
// (stacks, GC metadata, mappings outside the heap: the Dict's bucket
// tables are there) and the rest (the binary, the C and kernel side).
// For Ordo it loads the same hashes with and without the index, so the
// index's part is the difference, and prints the engine's own counts:
// used_memory (the keyspace: records, hash objects) and FT.INFO's sizes
// of the index's parts.
//
//	MEASURE=1 ORDO_BENCH_SYNC=memory go test ./bench/embedded -run MeasureMemory -v
func TestMeasureMemory(t *testing.T) {
	if os.Getenv("MEASURE") == "" {
		t.Skip("set MEASURE=1 to measure")
	}
	type row struct {
		what                string
		rss, heap, idle, rt float64
		used, ftinfo        string
	}
	var rows []row
	for _, k := range []struct{ kind, what string }{
		{"hashes", "empty (the test binary, an Ordo DB)"},
		{"bunt", "BuntDB, 2 indexes"},
		{"hashes", "Ordo, hashes alone"},
		{"ordo", "Ordo, hashes + FT index"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "ORDO_BENCH_MEMCHILD="+k.kind)
		if strings.HasPrefix(k.what, "empty") {
			cmd.Env = append(cmd.Env, "ORDO_BENCH_MEMEMPTY=1")
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", k.kind, err)
		}
		r := row{what: k.what}
		for _, l := range strings.Split(string(out), "\n") {
			if f, ok := strings.CutPrefix(l, "MEM "); ok {
				var a, b, c, d int64
				fmt.Sscan(f, &a, &b, &c, &d)
				r.rss, r.heap, r.idle, r.rt = float64(a)/1e6, float64(b)/1e6, float64(c)/1e6, float64(d)/1e6
			}
			if f, ok := strings.CutPrefix(l, "ORDOMEM "); ok {
				r.used = f
			}
			if f, ok := strings.CutPrefix(l, "FTMEM "); ok {
				r.ftinfo = f
			}
		}
		rows = append(rows, r)
	}
	fmt.Printf("%d objects, sync %s; MB (1e6 bytes) after load and a GC\n", N, policy())
	fmt.Printf("%-38s %8s %8s %10s %8s %8s\n", "store", "RSS", "Go heap", "free heap", "runtime", "rest")
	for _, r := range rows {
		fmt.Printf("%-38s %8.1f %8.1f %10.1f %8.1f %8.1f\n", r.what, r.rss, r.heap, r.idle, r.rt, r.rss-r.heap-r.idle-r.rt)
	}
	h, o := rows[2], rows[3]
	fmt.Printf("index's part (Ordo with it minus without): RSS %.1f, Go heap %.1f\n", o.rss-h.rss, o.heap-h.heap)
	fmt.Printf("Ordo, hashes alone: %s\nOrdo, with the index: %s; FT.INFO: %s\n", h.used, o.used, o.ftinfo)
}

// printOrdoMemory prints the engine's counts of a loaded Ordo store, for
// TestMeasureMemory.
func printOrdoMemory(s *ordoStore) {
	info, _ := s.db.Do(s.ctx, "INFO", "memory").Text()
	used := ""
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, "used_memory:"); ok {
			n, _ := strconv.ParseFloat(v, 64)
			used = fmt.Sprintf("used_memory %.1f MB", n/1e6)
		}
	}
	if v, err := s.db.Do(s.ctx, "MEMORY", "STATS").Value(); err == nil {
		used += ", " + pick(v, "keys.bytes-per-key") + " bytes per key"
	}
	fmt.Println("ORDOMEM " + used)
	v, err := s.db.Do(s.ctx, "FT.INFO", "users").Value()
	if err != nil {
		return
	}
	var parts []string
	for _, f := range []string{"doc_table_size_mb", "key_table_size_mb", "inverted_sz_mb", "sortable_values_size_mb"} {
		parts = append(parts, f+" "+pick(v, f))
	}
	fmt.Println("FTMEM " + strings.Join(parts, ", "))
}

// pick returns the value after name in a reply of name, value pairs.
func pick(v any, name string) string {
	a, _ := v.([]any)
	for i := 0; i+1 < len(a); i += 2 {
		if fmt.Sprint(a[i]) == name {
			s := fmt.Sprint(a[i+1])
			if f, err := strconv.ParseFloat(s, 64); err == nil && f != float64(int64(f)) {
				return strconv.FormatFloat(f, 'f', 2, 64)
			}
			return s
		}
	}
	return "?"
}
