package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// ResultsFile is the name of the machine-readable results next to
// RESULTS.md. It is the source of truth: RESULTS.md and ratios.svg are
// generated from it (Render), and a run with Options.Merge replaces only
// the rows it measured, each other row keeping the run it came from.
const ResultsFile = "results.json"

// File is the content of results.json: the runs and the rows, each row
// naming the run (RunInfo.ID) it was measured in.
type File struct {
	Version int       `json:"version"`
	Runs    []RunInfo `json:"runs"`
	Rows    []Result  `json:"rows"`
}

// RunInfo describes one run of the bench: when, where, with which
// command, and how busy the machine was.
type RunInfo struct {
	ID      int       `json:"id"`
	Date    time.Time `json:"date"` // when the run finished (its rows written), UTC
	Took    string    `json:"took"` // a time.Duration, rounded to the second
	Command string    `json:"command"`
	Flags   Flags     `json:"flags"`
	Machine string    `json:"machine"`
	Redis   string    `json:"redis_server"`
	Ordo    string    `json:"ordo_server"`
	Go      string    `json:"go"`
	Commit  string    `json:"commit,omitempty"` // git describe --always --dirty of the tree
	// LoadAvg is the 1-minute load average at the start and at the end of
	// the run; GroupLoad the same around each row group it ran.
	LoadAvg   []float64            `json:"loadavg,omitempty"`
	GroupLoad map[string][]float64 `json:"group_loadavg,omitempty"`
	// Notes are said of the run as a whole (e.g. how busy the machine was
	// for an imported run without load averages).
	Notes []string `json:"notes,omitempty"`
}

// Flags are the options of a run that decide its figures.
type Flags struct {
	Rows      string `json:"rows,omitempty"`
	N         int    `json:"n"`
	Clients   int    `json:"c"`
	Keyspace  int    `json:"r"`
	Repeat    int    `json:"repeat"`
	Elements  int    `json:"elements"`
	OrdoProcs int    `json:"ordo_procs"`
	Soak      string `json:"soak,omitempty"`
	OrdoBin   string `json:"ordo_server,omitempty"`
}

func flagsOf(o Options) Flags {
	f := Flags{Rows: o.Rows, N: o.N, Clients: o.Clients, Keyspace: o.Keyspace, Repeat: o.Repeat,
		Elements: o.Elements, OrdoProcs: o.OrdoProcs, OrdoBin: o.userOrdoBin}
	if o.Soak > 0 {
		f.Soak = o.Soak.String()
	}
	return f
}

// command is the command line that reproduces a run with these flags:
// `go run ./cmd/ordo bench` and every flag that differs from its default
// (-out and -merge decide where figures go, not what they are).
func (f Flags) command() string {
	args := []string{"go", "run", "./cmd/ordo", "bench"}
	if f.Rows != "" {
		args = append(args, "-rows", shellQuote(f.Rows))
	}
	if f.Soak != "" {
		args = append(args, "-soak", f.Soak)
	}
	for _, x := range []struct {
		flag     string
		v, deflt int
	}{{"-n", f.N, 200000}, {"-c", f.Clients, 50}, {"-r", f.Keyspace, 1000000}, {"-repeat", f.Repeat, 3},
		{"-elements", f.Elements, 1000000}, {"-ordo-procs", f.OrdoProcs, max(1, runtime.NumCPU()-1)}} {
		if x.v != x.deflt {
			args = append(args, x.flag, strconv.Itoa(x.v))
		}
	}
	if f.OrdoBin != "" {
		args = append(args, "-ordo-server", shellQuote(f.OrdoBin))
	}
	return strings.Join(args, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// settings is the run's settings sentence of RESULTS.md.
func (f Flags) settings() string {
	return fmt.Sprintf("redis-benchmark -c %d -n %d -r %d; %d elements for memory/load/restart rows; each figure is the median of %d runs, the servers alternating (Redis, Ordo, Redis, Ordo ...). Both servers run without persistence except in the restart row. The load generator runs on the same machine: ordo-server gets GOMAXPROCS=%d (all cores but one, as Redis's single main thread leaves the rest to the client; `-ordo-procs` changes it).",
		f.Clients, f.N, f.Keyspace, f.Elements, f.Repeat, f.OrdoProcs)
}

var settingsRE = regexp.MustCompile(`^redis-benchmark -c (\d+) -n (\d+) -r (\d+); (\d+) elements .* median of (\d+) runs,.* GOMAXPROCS=(\d+) `)

func parseSettings(s string) (Flags, error) {
	m := settingsRE.FindStringSubmatch(s)
	if m == nil {
		return Flags{}, fmt.Errorf("settings not understood: %q", s)
	}
	var v [6]int
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	return Flags{Clients: v[0], N: v[1], Keyspace: v[2], Elements: v[3], Repeat: v[4], OrdoProcs: v[5]}, nil
}

// loadAvg is the 1-minute load average (0 where /proc/loadavg is absent).
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	x, _ := strconv.ParseFloat(f[0], 64)
	return x
}

func gitDescribe() string {
	out, err := execOutput("git", "describe", "--always", "--dirty")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// ReadFile reads a results file.
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

// check verifies that every row names a run of the file and that no
// two rows share a group and name.
func (f *File) check() error {
	runs := map[int]bool{}
	for _, r := range f.Runs {
		if runs[r.ID] {
			return fmt.Errorf("two runs with id %d", r.ID)
		}
		runs[r.ID] = true
	}
	seen := map[string]bool{}
	for _, r := range f.Rows {
		if !runs[r.Run] {
			return fmt.Errorf("row %q names run %d, which the file does not hold", r.key(), r.Run)
		}
		if seen[r.key()] {
			return fmt.Errorf("two rows named %q", r.key())
		}
		seen[r.key()] = true
	}
	return nil
}

func (f *File) run(id int) *RunInfo {
	for i := range f.Runs {
		if f.Runs[i].ID == id {
			return &f.Runs[i]
		}
	}
	return nil
}

// writeAtomic writes b to path through a temporary file and a rename, so
// an interrupted write leaves the old file whole.
func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// WriteAll writes results.json, RESULTS.md and ratios.svg into dir.
func WriteAll(dir string, f *File) error {
	if err := f.check(); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range f.Rows {
		f.Rows[i].StoredRatio = f.Rows[i].Ratio()
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, ResultsFile), append(b, '\n')); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, "RESULTS.md"), renderMarkdown(f)); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "ratios.svg"), chartSVG(f.Rows))
}

// Render regenerates RESULTS.md and ratios.svg in dir from its
// results.json, running nothing.
func Render(dir string) error {
	f, err := ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		return err
	}
	return WriteAll(dir, f)
}

// Import reads a RESULTS.md (the format this package writes, or the
// single-run one it wrote before results.json existed) into dir's
// results.json, RESULTS.md and ratios.svg. It refuses to overwrite an
// existing results.json.
func Import(dir, mdPath string) error {
	out := filepath.Join(dir, ResultsFile)
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists; Import would replace it", out)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	md, err := os.ReadFile(mdPath)
	if err != nil {
		return err
	}
	f, err := ParseMarkdown(md)
	if err != nil {
		return fmt.Errorf("%s: %w", mdPath, err)
	}
	return WriteAll(dir, f)
}

// ---- merge ----

// groupIndex is g's place among the bench's row groups (-1: none).
func groupIndex(g string) int {
	for i, x := range rowGroups {
		if x.name == g {
			return i
		}
	}
	return -1
}

// selects reports whether a run with options o measures the row named
// key of group g (whether a row it did not produce is gone from the
// bench).
func selects(o Options, sel *regexp.Regexp, g, key string) bool {
	if g == "soak" {
		// The soak runs only with -soak, and is selected as a whole.
		return o.Soak > 0 && sel.MatchString("soak")
	}
	return sel.MatchString(key)
}

// merge puts the rows of a new run (run, rows) into old: a row of the same
// group and name is replaced in place; a row the run selected (by -rows)
// but did not produce is no longer in the bench and is dropped, as is a
// row of a group the bench no longer has, each with a note through warn;
// every other row is kept with its own run. A group that failed in this
// run as a whole (a row of its own with an error, such as "start") keeps
// its old rows. Runs no row comes from any more are dropped.
func merge(old *File, run RunInfo, rows []Result, o Options, sel *regexp.Regexp, warn func(string, ...any)) *File {
	run.ID = 1
	for _, r := range old.Runs {
		run.ID = max(run.ID, r.ID+1)
	}
	oldKeys := map[string]bool{}
	for _, r := range old.Rows {
		oldKeys[r.key()] = true
	}
	fresh := map[string]int{} // key -> index in rows
	failed := map[string]bool{}
	for i := range rows {
		rows[i].Run = run.ID
		fresh[rows[i].key()] = i
		// A row of its own with an error and no figures (e.g. "start",
		// "setup"): the group did not run.
		if r := rows[i]; r.Err != "" && !oldKeys[r.key()] && r.Redis == 0 && r.Ordo == 0 {
			failed[r.Group] = true
		}
	}
	placed := map[string]bool{}
	var out []Result
	for _, r := range old.Rows {
		k := r.key()
		switch i, ok := fresh[k]; {
		case ok:
			out = append(out, rows[i])
			placed[k] = true
		case groupIndex(r.Group) < 0:
			warn("bench: dropping %q (from run %d): the bench has no group %q any more", k, r.Run, r.Group)
		case selects(o, sel, r.Group, k) && !failed[r.Group]:
			warn("bench: dropping %q (from run %d): this run selected it (-rows %q) but has no such row; it is no longer in the bench, or these flags name it differently", k, r.Run, o.Rows)
		default:
			out = append(out, r)
		}
	}
	// New rows: after the row the run measured before them, else at the
	// end of their group, else where their group comes in the bench.
	prev := ""
	for _, r := range rows {
		k := r.key()
		if placed[k] {
			prev = k
			continue
		}
		at := -1
		for i := range out {
			if prev != "" && out[i].key() == prev && out[i].Group == r.Group {
				at = i + 1
				break
			}
		}
		if at < 0 {
			// After the last row of its group; else before the first row
			// of a later group.
			gi := groupIndex(r.Group)
			for i := range out {
				if out[i].Group == r.Group {
					at = i + 1
				}
			}
			for i := 0; at < 0 && i < len(out); i++ {
				if groupIndex(out[i].Group) > gi {
					at = i
				}
			}
			if at < 0 {
				at = len(out)
			}
		}
		out = append(out[:at], append([]Result{r}, out[at:]...)...)
		placed[k] = true
		prev = k
	}
	used := map[int]bool{}
	for _, r := range out {
		used[r.Run] = true
	}
	nf := &File{Version: 1}
	for _, ri := range old.Runs {
		if used[ri.ID] {
			nf.Runs = append(nf.Runs, ri)
		}
	}
	if used[run.ID] {
		nf.Runs = append(nf.Runs, run)
	}
	nf.Rows = out
	return nf
}

// ---- RESULTS.md ----

const dateLayout = "2006-01-02 15:04 MST"

func (ri *RunInfo) loadText() string {
	var parts []string
	if len(ri.LoadAvg) == 2 {
		parts = append(parts, fmt.Sprintf("%.2f at the start, %.2f at the end", ri.LoadAvg[0], ri.LoadAvg[1]))
	}
	var gs []string
	for _, g := range rowGroups {
		if l, ok := ri.GroupLoad[g.name]; ok && len(l) == 2 {
			gs = append(gs, fmt.Sprintf("%s %.2f–%.2f", g.name, l[0], l[1]))
		}
	}
	if len(gs) > 0 {
		parts = append(parts, "by row group (start–end): "+strings.Join(gs, ", "))
	}
	return strings.Join(parts, "; ")
}

// runLine says where a group's rows from run ri come from.
func (ri *RunInfo) runLine(group string) string {
	s := fmt.Sprintf("run %d (%s, `%s`", ri.ID, ri.Date.UTC().Format(dateLayout), ri.Command)
	if l, ok := ri.GroupLoad[group]; ok && len(l) == 2 {
		s += fmt.Sprintf(", load average %.2f–%.2f", l[0], l[1])
	}
	return s + ")"
}

func renderMarkdown(f *File) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Ordo vs Redis, side by side\n\n")
	fmt.Fprintf(&b, "Generated by `go run ./cmd/ordo bench` from %s, which holds every row with the run it comes from. A run with `-rows REGEXP -merge` replaces only its rows there; `go run ./cmd/ordo bench -render` regenerates this file and ratios.svg from it (bench/README.md).\n\n", ResultsFile)
	fmt.Fprintf(&b, "## Runs\n")
	for _, ri := range f.Runs {
		fmt.Fprintf(&b, "\n### Run %d: finished %s after %s\n\n", ri.ID, ri.Date.UTC().Format(dateLayout), ri.Took)
		fmt.Fprintf(&b, "- Command: `%s`\n", ri.Command)
		fmt.Fprintf(&b, "- Machine: %s\n", ri.Machine)
		fmt.Fprintf(&b, "- redis-server: %s\n", ri.Redis)
		fmt.Fprintf(&b, "- ordo-server: %s\n", ri.Ordo)
		fmt.Fprintf(&b, "- Go: %s\n", ri.Go)
		if ri.Commit != "" {
			fmt.Fprintf(&b, "- Commit: %s\n", ri.Commit)
		}
		fmt.Fprintf(&b, "- Settings: %s\n", ri.Flags.settings())
		if l := ri.loadText(); l != "" {
			fmt.Fprintf(&b, "- Load average (1 minute): %s\n", l)
		}
		for _, n := range ri.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	fmt.Fprintf(&b, "\nRatio = Ordo / Redis. For throughput higher is better; for memory and time lower is better. ✔ marks rows where Ordo is ahead or equal (or, where a row states a goal, meets it).\n\n")
	fmt.Fprintf(&b, "![ratios](ratios.svg)\n\n")
	// Rows by group, in the file's order of first appearance.
	var groups []string
	byGroup := map[string][]Result{}
	for _, r := range f.Rows {
		if _, ok := byGroup[r.Group]; !ok {
			groups = append(groups, r.Group)
		}
		byGroup[r.Group] = append(byGroup[r.Group], r)
	}
	for _, g := range groups {
		rs := byGroup[g]
		var runs []int
		for _, r := range rs {
			if !containsInt(runs, r.Run) {
				runs = append(runs, r.Run)
			}
		}
		fmt.Fprintf(&b, "\n## %s\n\n", g)
		mixed := len(runs) > 1
		if !mixed {
			fmt.Fprintf(&b, "From %s.\n\n", f.run(runs[0]).runLine(g))
			fmt.Fprintf(&b, "| row | unit | Redis | Ordo | Ordo/Redis | | notes |\n|---|---|---:|---:|---:|---|---|\n")
		} else {
			var ls []string
			for _, id := range runs {
				ls = append(ls, f.run(id).runLine(g))
			}
			fmt.Fprintf(&b, "From %s; the run column says which.\n\n", strings.Join(ls, " and "))
			fmt.Fprintf(&b, "| row | unit | Redis | Ordo | Ordo/Redis | | run | notes |\n|---|---|---:|---:|---:|---|---:|---|\n")
		}
		for _, r := range rs {
			mark, notes := r.markNotes()
			run := ""
			if mixed {
				run = fmt.Sprintf(" %d |", r.Run)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f | %s |%s %s |\n", r.Name, r.Unit, fmtNum(r.Redis), fmtNum(r.Ordo), r.Ratio(), mark, run, notes)
		}
	}
	fmt.Fprintf(&b, "\nReproduce one row: its run's command with `-rows` narrowed to it, e.g. `go run ./cmd/ordo bench -rows 'ZADD -P 16' -out /tmp/b` (a regular expression over \"group name\"); `-merge` (without -out) puts its figures into this file. See bench/README.md.\n")
	return b.Bytes()
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// markNotes is a row's mark (✔, ✘, ! for an error) and its notes column.
func (r Result) markNotes() (mark, notes string) {
	mark = "✘"
	if r.OrdoBetter() {
		mark = "✔"
	}
	notes = r.Extra
	if r.Base != "" {
		notes = strings.TrimSpace("Redis column: " + r.Base + ". " + notes)
	}
	if r.Goal != 0 {
		notes = strings.TrimSpace(notes + fmt.Sprintf(" Goal: ratio %s %.2f.", map[bool]string{true: "≥", false: "≤"}[r.HigherBetter], r.Goal))
	}
	if r.Err != "" {
		notes = strings.TrimSpace(notes + " **error:** " + r.Err)
		mark = "!"
	}
	return mark, notes
}
