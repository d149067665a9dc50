package bench

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// oldFile is a results file of one earlier full run.
func oldFile() *File {
	run := RunInfo{ID: 1, Date: time.Date(2026, 11, 25, 0, 28, 0, 0, time.UTC), Took: "34m24s",
		Flags:   Flags{N: 200000, Clients: 50, Keyspace: 1000000, Repeat: 3, Elements: 1000000, OrdoProcs: 1, Soak: "2m30s"},
		Machine: "2 cores", Redis: "Redis 7.0.15", Ordo: "Ordo 0.1.0", Go: "go1.26.8",
		LoadAvg: []float64{0.5, 2.1}, GroupLoad: map[string][]float64{"throughput": {0.5, 1.2}, "memory": {1.2, 1.9}}}
	run.Command = run.Flags.command()
	rows := []Result{
		{Group: "throughput", Name: "PING -P 1", Unit: "req/s", Redis: 91158, Ordo: 92039, HigherBetter: true, Extra: "p50 0.279/0.279 ms"},
		{Group: "throughput", Name: "PING -P 16", Unit: "req/s", Redis: 1408451, Ordo: 1360544, HigherBetter: true},
		{Group: "throughput", Name: "SET -P 16", Unit: "req/s", Redis: 766284, Ordo: 657895, HigherBetter: true},
		{Group: "memory", Name: "RSS after 1000000 strings", Unit: "MiB RSS", Redis: 106.5, Ordo: 54.2},
		{Group: "soak", Name: "operations (2m30s mixed load)", Unit: "ops/s", Redis: 409756, Ordo: 342859, HigherBetter: true},
		{Group: "index", Name: "HSET indexed", Unit: "HSET/s", Redis: 701425, Ordo: 292358, HigherBetter: true, Base: "ordo-server without an index", Goal: 0.67},
	}
	for i := range rows {
		rows[i].Run = 1
	}
	return &File{Version: 1, Runs: []RunInfo{run}, Rows: rows}
}

func newRun(o Options) RunInfo {
	fl := flagsOf(o)
	return RunInfo{Date: time.Date(2026, 11, 25, 3, 40, 0, 0, time.UTC), Took: "41s", Flags: fl, Command: fl.command(),
		Machine: "2 cores", Redis: "Redis 7.0.15", Ordo: "Ordo 0.1.0", Go: "go1.26.8",
		LoadAvg: []float64{3, 4}, GroupLoad: map[string][]float64{"throughput": {3, 4}}}
}

// svgTitles are the <title>s of the chart's bars, one per row with a ratio.
func svgTitles(t *testing.T, svg []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var titles []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return titles
		}
		if err != nil {
			t.Fatalf("chart is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "title" {
			var s string
			if err := d.DecodeElement(&s, &se); err != nil {
				t.Fatal(err)
			}
			titles = append(titles, s)
		}
	}
}

// A run of one row with -merge replaces that row alone: every other row
// keeps its figures and its run (date, command, load), RESULTS.md says
// which run each row of the mixed group comes from, and the chart draws
// every row.
func TestMergeReplacesOnlyNamedRows(t *testing.T) {
	old := oldFile()
	o := Options{Rows: "PING -P 16", Repeat: 1, Merge: true}
	o.defaults()
	sel := regexp.MustCompile(o.Rows)
	fresh := []Result{{Group: "throughput", Name: "PING -P 16", Unit: "req/s", Redis: 1400000, Ordo: 1500000, HigherBetter: true}}
	var warned []string
	f := merge(old, newRun(o), fresh, o, sel, func(format string, a ...any) { warned = append(warned, fmt.Sprintf(format, a...)) })
	if len(warned) > 0 {
		t.Errorf("warnings %q, want none", warned)
	}
	if len(f.Rows) != len(old.Rows) {
		t.Fatalf("%d rows after the merge, want %d", len(f.Rows), len(old.Rows))
	}
	for i, r := range f.Rows {
		want := old.Rows[i]
		if r.key() == "throughput PING -P 16" {
			want = fresh[0]
			want.Run = 2
		}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("row %d = %+v, want %+v", i, r, want)
		}
	}
	if len(f.Runs) != 2 || !reflect.DeepEqual(f.Runs[0], old.Runs[0]) || f.Runs[1].ID != 2 {
		t.Fatalf("runs = %+v, want the old run unchanged and run 2", f.Runs)
	}

	dir := t.TempDir()
	if err := WriteAll(dir, f); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "RESULTS.md"))
	for _, want := range []string{
		"### Run 1: finished 2026-11-25 00:28 UTC after 34m24s",
		"- Command: `go run ./cmd/ordo bench -soak 2m30s`",
		"### Run 2: finished 2026-11-25 03:40 UTC after 41s",
		"- Command: `go run ./cmd/ordo bench -rows 'PING -P 16' -repeat 1`",
		"- Load average (1 minute): 3.00 at the start, 4.00 at the end; by row group (start–end): throughput 3.00–4.00",
		"From run 1 (2026-11-25 00:28 UTC, `go run ./cmd/ordo bench -soak 2m30s`, load average 0.50–1.20) and run 2 (2026-11-25 03:40 UTC, `go run ./cmd/ordo bench -rows 'PING -P 16' -repeat 1`, load average 3.00–4.00); the run column says which.",
		"| PING -P 1 | req/s | 91158 | 92039 | 1.01 | ✔ | 1 | p50 0.279/0.279 ms |",
		"| PING -P 16 | req/s | 1400000 | 1500000 | 1.07 | ✔ | 2 |  |",
		"From run 1 (2026-11-25 00:28 UTC, `go run ./cmd/ordo bench -soak 2m30s`, load average 1.20–1.90).",
		"| RSS after 1000000 strings | MiB RSS | 106.5 | 54.2 | 0.51 | ✔ |  |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, md)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "ratios.svg"))
	titles := svgTitles(t, svg)
	if len(titles) != len(f.Rows) {
		t.Errorf("chart draws %d bars %q, want one per row (%d)", len(titles), titles, len(f.Rows))
	}
	for _, want := range []string{"throughput: PING -P 16: 1.07", "throughput: PING -P 1: 1.01", "index: HSET indexed: 0.42"} {
		if !strings.Contains(strings.Join(titles, "\n"), want) {
			t.Errorf("chart lacks the bar %q: %q", want, titles)
		}
	}

	// results.json read back renders the same files.
	back, err := ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := renderMarkdown(back); !bytes.Equal(got, md) {
		t.Errorf("RESULTS.md rendered from results.json read back differs:\n%s\nwant\n%s", got, md)
	}
	if got := chartSVG(back.Rows); !bytes.Equal(got, svg) {
		t.Errorf("ratios.svg rendered from results.json read back differs")
	}
}

// Rows a run selected but did not produce, and rows of a group the bench
// no longer has, are dropped with a note; rows of a group that failed in
// the run are kept; new rows go after the row measured before them; a run
// no row comes from any more is dropped.
func TestMergeDropsGoneRowsKeepsFailedGroups(t *testing.T) {
	old := oldFile()
	old.Rows = append(old.Rows, Result{Group: "bogus", Name: "gone", Unit: "x", Redis: 1, Ordo: 1, Run: 1})
	o := Options{Rows: "throughput|^memory", Repeat: 1, Merge: true}
	o.defaults()
	sel := regexp.MustCompile(o.Rows)
	fresh := []Result{
		{Group: "throughput", Name: "PING -P 1", Unit: "req/s", Redis: 1, Ordo: 2, HigherBetter: true},
		{Group: "throughput", Name: "NEW -P 1", Unit: "req/s", Redis: 1, Ordo: 3, HigherBetter: true},
		{Group: "throughput", Name: "SET -P 16", Unit: "req/s", Redis: 1, Ordo: 4, HigherBetter: true},
		{Group: "memory", Name: "start", Err: "connection refused"}, // memory failed as a whole
	}
	var warned []string
	f := merge(old, newRun(o), fresh, o, sel, func(format string, a ...any) { warned = append(warned, fmt.Sprintf(format, a...)) })
	var got []string
	for _, r := range f.Rows {
		got = append(got, fmt.Sprintf("%s/%d", r.key(), r.Run))
	}
	want := []string{
		"throughput PING -P 1/2", "throughput NEW -P 1/2", "throughput SET -P 16/2",
		"memory RSS after 1000000 strings/1", "memory start/2",
		"soak operations (2m30s mixed load)/1", // not run (no -soak): kept
		"index HSET indexed/1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows after the merge:\n%q\nwant\n%q", got, want)
	}
	w := strings.Join(warned, "\n")
	if len(warned) != 2 || !strings.Contains(w, `"throughput PING -P 16"`) || !strings.Contains(w, `"bogus gone"`) {
		t.Errorf("warnings %q, want one for the throughput row the run did not produce and one for the bogus group", warned)
	}

	// When the run replaces every row of the old run, the old run goes.
	all := Options{Repeat: 1, Merge: true}
	all.defaults()
	var every []Result
	for _, r := range old.Rows[:len(old.Rows)-1] {
		r.Run = 0
		every = append(every, r)
	}
	f = merge(old, newRun(Options{Soak: 150 * time.Second}), every, Options{Soak: 150 * time.Second}, regexp.MustCompile(""), func(string, ...any) {})
	if len(f.Runs) != 1 || f.Runs[0].ID != 2 || len(f.Rows) != len(old.Rows)-1 {
		t.Errorf("after replacing every row: runs %+v, %d rows; want run 2 alone and %d rows", f.Runs, len(f.Rows), len(old.Rows)-1)
	}
}

// The RESULTS.md the bench wrote before results.json is read into a run
// and its rows; rendering that and reading it again gives the same file,
// and every table row of the old file comes out as it was.
func TestParseRenderRoundTrip(t *testing.T) {
	legacy, err := os.ReadFile("testdata/legacy-RESULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseMarkdown(legacy)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Runs) != 1 || len(f.Rows) != 11 {
		t.Fatalf("parsed %d runs and %d rows, want 1 and 11", len(f.Runs), len(f.Rows))
	}
	ri := f.Runs[0]
	if ri.Command != "go run ./cmd/ordo bench -soak 2m30s" || ri.Date != time.Date(2026, 11, 25, 0, 28, 0, 0, time.UTC) ||
		ri.Took != "34m24s" || ri.Flags.Repeat != 3 || ri.Flags.OrdoProcs != 1 || ri.Go != "go1.26.8" ||
		len(ri.Notes) != 2 || !strings.HasPrefix(ri.Notes[0], "Machine load: ") {
		t.Errorf("run = %+v", ri)
	}
	byName := map[string]Result{}
	for _, r := range f.Rows {
		byName[r.Name] = r
	}
	if r := byName["200000 HSET of 3 fields: FT index over them vs none (ordo-server)"]; r.Base != "ordo-server without an index" ||
		r.Goal != 0.67 || !r.HigherBetter || !strings.HasPrefix(r.Extra, "4 connections pipelining") {
		t.Errorf("index row = %+v", r)
	}
	if r := byName["setup"]; r.Err != "redis: connection refused" || r.Extra != "" {
		t.Errorf("error row = %+v", r)
	}
	// Rounded figures: 1.00 ✘ stays ✘, 0.03 / 0.20 stays 0.17.
	if r := byName["ZRANGEBYSCORE LIMIT -P 1"]; r.OrdoBetter() {
		t.Errorf("ZRANGEBYSCORE row (1.00 ✘) reads as met: %+v", r)
	}
	if r := byName["Within of 100 hits, p50, on redis-server"]; r.OrdoBetter() || r.HigherBetter {
		t.Errorf("Within row (ms, 1.00 ✘) = %+v", r)
	}
	if r := byName["box decomposition (up to 32 ranges), p99"]; fmt.Sprintf("%.2f", r.Ratio()) != "0.17" {
		t.Errorf("decomposition ratio %v, want 0.17 as printed", r.Ratio())
	}

	md := renderMarkdown(f)
	for _, ln := range strings.Split(string(legacy), "\n") {
		if strings.HasPrefix(ln, "| ") && !strings.HasPrefix(ln, "| row |") && !bytes.Contains(md, []byte(ln+"\n")) {
			t.Errorf("rendered RESULTS.md lacks the row\n%s", ln)
		}
	}
	for _, s := range []string{ri.Machine, ri.Redis, ri.Ordo, ri.Notes[0], ri.Flags.settings()} {
		if !bytes.Contains(md, []byte(s)) {
			t.Errorf("rendered RESULTS.md lacks %q", s)
		}
	}
	f2, err := ParseMarkdown(md)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f2, f) {
		t.Errorf("parse(render(f)) differs from f:\n%+v\nwant\n%+v", f2, f)
	}
	// And through JSON.
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var f3 File
	if err := json.Unmarshal(b, &f3); err != nil {
		t.Fatal(err)
	}
	if got := renderMarkdown(&f3); !bytes.Equal(got, md) {
		t.Errorf("render after a JSON round trip differs")
	}
}

// bench/RESULTS.md and ratios.svg are what bench/results.json renders
// (edit results.json, e.g. a run's notes, and -render; never RESULTS.md).
func TestCommittedResultsInSync(t *testing.T) {
	f, err := ReadFile(ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile("RESULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := renderMarkdown(f); !bytes.Equal(got, md) {
		t.Errorf("bench/RESULTS.md is not what bench/results.json renders: run `go run ./cmd/ordo bench -render`")
	}
	svg, err := os.ReadFile("ratios.svg")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(chartSVG(f.Rows), svg) {
		t.Errorf("bench/ratios.svg is not what bench/results.json renders: run `go run ./cmd/ordo bench -render`")
	}
	p, err := ParseMarkdown(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != len(f.Rows) {
		t.Fatalf("RESULTS.md has %d rows, results.json %d", len(p.Rows), len(f.Rows))
	}
	for i := range p.Rows {
		a, b := p.Rows[i], f.Rows[i]
		if a.key() != b.key() || a.Run != b.Run || fmtNum(a.Redis) != fmtNum(b.Redis) || fmtNum(a.Ordo) != fmtNum(b.Ordo) {
			t.Errorf("row %d: RESULTS.md %+v, results.json %+v", i, a, b)
		}
	}
}

func TestCommand(t *testing.T) {
	o := Options{Rows: "throughput (SET|GET) -P 1$", Repeat: 1, N: 50000, Soak: 150 * time.Second, OrdoBin: "/tmp/ordo-server"}
	o.userOrdoBin = o.OrdoBin
	o.defaults()
	want := "go run ./cmd/ordo bench -rows 'throughput (SET|GET) -P 1$' -soak 2m30s -n 50000 -repeat 1 -ordo-server /tmp/ordo-server"
	if got := flagsOf(o).command(); got != want {
		t.Errorf("command = %s\nwant      %s", got, want)
	}
	if got := shellQuote("it's"); got != `'it'\''s'` {
		t.Errorf("shellQuote(it's) = %s", got)
	}
	for _, w := range []string{"it's", "a b|c$", "", "plain"} {
		if got := shellWords("x " + shellQuote(w) + " y"); !reflect.DeepEqual(got, []string{"x", w, "y"}) {
			t.Errorf("shellWords(shellQuote(%q)) = %q", w, got)
		}
	}
}
