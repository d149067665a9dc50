// Package bench measures ordo-server against redis-server side by side,
// in one run, and reports every figure as a ratio. It is what
// `go run ./cmd/ordo bench` runs.
//
// Both servers run as separate processes on free loopback ports with
// equivalent settings (no persistence for the throughput and memory rows).
// Every measurement alternates between the two servers (Redis, Ordo,
// Redis, Ordo, ...), is repeated (three times by default) and the median
// is reported, so a noisy machine does not decide the result. Nothing is
// smoothed or hard-coded: a row where Ordo is behind is printed as such.
//
// A run writes results.json (each row with the run it comes from: date,
// machine, commit, command, load average), and RESULTS.md and ratios.svg
// are generated from that file alone (Render). A partial run with
// Options.Merge replaces only its own rows there, so every row of
// RESULTS.md keeps the run that measured it and the chart draws them all.
package bench

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// Options select what to measure.
type Options struct {
	N        int    // requests per throughput run (redis-benchmark -n)
	Clients  int    // redis-benchmark -c
	Keyspace int    // redis-benchmark -r
	Repeat   int    // measurements per row and server (median reported)
	Elements int    // elements loaded for the memory and load rows
	Rows     string // regexp selecting rows by name ("" = all)
	Out      string // directory for results.json, RESULTS.md and ratios.svg
	OrdoBin  string // ordo-server binary ("" = build ./cmd/ordo-server)
	// Merge puts the rows this run measures into Out's existing
	// results.json, replacing the rows of the same names and keeping
	// every other row with the run it came from (see merge). Without it
	// the run's rows replace the whole file.
	Merge bool
	// OrdoProcs is GOMAXPROCS for ordo-server: 0 means all cores but one,
	// left to redis-benchmark, which runs on the same machine (Redis's
	// single main thread likewise leaves the other cores to the client).
	OrdoProcs int
	// Soak is the length of each soak run (0: no soak rows; they are
	// selected by -rows like the others, e.g. -rows soak -soak 150s).
	Soak time.Duration
	Log  func(format string, args ...any)

	userOrdoBin string // OrdoBin as given (the run's command names it)
}

// Result is one row: the median figure of each server and their ratio.
// It is also a row of results.json (the JSON names).
type Result struct {
	Group string  `json:"group"` // "throughput", "memory", "load", "restart", "cache", "soak", "index", "data", ...
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Redis float64 `json:"redis"`
	Ordo  float64 `json:"ordo"`
	// StoredRatio is the ratio as results.json holds it (from the
	// unrounded figures; Ratio returns it when set).
	StoredRatio float64 `json:"ratio"`
	// HigherBetter tells how to read the ratio ordo/redis.
	HigherBetter bool   `json:"higher_better"`
	Extra        string `json:"notes,omitempty"` // p50/p99 latencies, bytes per element ...
	Err          string `json:"error,omitempty"`
	// Base, when set, says what the Redis column holds instead of
	// redis-server (e.g. ordo-server without an index).
	Base string `json:"base,omitempty"`
	// Goal, when set, is the ratio the row must reach (at least, or at
	// most if !HigherBetter) to be marked ✔, instead of 1.
	Goal float64 `json:"goal,omitempty"`
	// Run is the RunInfo.ID of the run in results.json the row comes from.
	Run int `json:"run"`
}

// key is the row's "group name", what -rows matches and what names a
// row in results.json.
func (r Result) key() string { return r.Group + " " + r.Name }

// Ratio is Ordo's figure over Redis's.
func (r Result) Ratio() float64 {
	if r.StoredRatio != 0 {
		return r.StoredRatio
	}
	if r.Redis == 0 {
		return 0
	}
	return r.Ordo / r.Redis
}

// OrdoBetter reports whether the row favours Ordo.
func (r Result) OrdoBetter() bool {
	goal := r.Goal
	if goal == 0 {
		goal = 1
	}
	if r.HigherBetter {
		return r.Ratio() >= goal
	}
	return r.Ratio() <= goal
}

type server struct {
	name string
	cmd  *exec.Cmd
	addr string
	port int
	dir  string
}

func (o *Options) defaults() {
	if o.N == 0 {
		o.N = 200000
	}
	if o.Clients == 0 {
		o.Clients = 50
	}
	if o.Keyspace == 0 {
		o.Keyspace = 1000000
	}
	if o.Repeat == 0 {
		o.Repeat = 3
	}
	if o.Elements == 0 {
		o.Elements = 1000000
	}
	if o.Out == "" {
		o.Out = "bench"
	}
	if o.OrdoProcs == 0 {
		o.OrdoProcs = max(1, runtime.NumCPU()-1)
	}
	if o.Log == nil {
		o.Log = func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	}
}

// rowGroups are the row groups in the order Run measures them.
var rowGroups = []struct {
	name string
	rows func(Options, *regexp.Regexp, string) []Result
}{
	{"throughput", throughputRows}, {"stream", streamRows}, {"memory", memoryRows}, {"load", loadRows},
	{"restart", restartRows}, {"cache", cacheRows}, {"soak", soakRows}, {"index", indexRows},
	{"space", spaceRows}, {"repl", replRows}, {"data", dataRows},
}

// Run measures every selected row and writes results.json, RESULTS.md
// and ratios.svg into o.Out: the run's rows alone, or with o.Merge its
// rows merged into the results already there.
func Run(o Options) ([]Result, error) {
	o.userOrdoBin = o.OrdoBin
	o.defaults()
	sel, err := regexp.Compile(o.Rows)
	if err != nil {
		return nil, fmt.Errorf("bench: -rows: %w", err)
	}
	var old *File
	if o.Merge {
		// Read before measuring: a run that cannot be merged fails now,
		// not after an hour.
		if old, err = ReadFile(filepath.Join(o.Out, ResultsFile)); err != nil {
			return nil, fmt.Errorf("bench: -merge: %w", err)
		}
	}
	for _, tool := range []string{"redis-server", "redis-benchmark", "redis-cli"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("bench: %s not found (apt-get install -y redis-server redis-tools)", tool)
		}
	}
	tmp, err := os.MkdirTemp("", "ordo-bench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if o.OrdoBin == "" {
		o.OrdoBin = filepath.Join(tmp, "ordo-server")
		o.Log("building ordo-server ...")
		build := []string{"build", "-o", o.OrdoBin}
		if os.Getenv("ORDO_PPROF") != "" {
			// Profiling during a run: net/http/pprof is linked only with
			// this tag (ordo-server ignores ORDO_PPROF without it).
			build = append(build, "-tags", "ordo_pprof")
		}
		b := exec.Command("go", append(build, "./cmd/ordo-server")...)
		// A static binary, as README's deployment build: the cgo DNS
		// resolver links libc, whose pages cost an idle server 1.4 MB of
		// RSS; the pure-Go resolver serves ordo-server's few lookups.
		b.Env = append(os.Environ(), "CGO_ENABLED=0")
		b.Stdout, b.Stderr = os.Stderr, os.Stderr
		if err := b.Run(); err != nil {
			return nil, fmt.Errorf("bench: building ordo-server: %w", err)
		}
	}
	start := time.Now()
	fl := flagsOf(o)
	run := RunInfo{ID: 1, Command: fl.command(), Flags: fl, Machine: machine(),
		Redis: version("redis-server", "--version"), Ordo: version(o.OrdoBin, "--version"),
		Go: runtime.Version(), Commit: gitDescribe(), GroupLoad: map[string][]float64{}}
	l0 := loadAvg()
	var results []Result
	for _, g := range rowGroups {
		before := loadAvg()
		rs := g.rows(o, sel, tmp)
		if len(rs) > 0 {
			run.GroupLoad[g.name] = []float64{before, loadAvg()}
		}
		results = append(results, rs...)
	}
	run.LoadAvg = []float64{l0, loadAvg()}
	// Two rows of one name would make results.json unreadable: keep both.
	seen := map[string]int{}
	for i := range results {
		k := results[i].key()
		if seen[k]++; seen[k] > 1 {
			results[i].Name += fmt.Sprintf(" #%d", seen[k])
			o.Log("bench: two rows named %q; the second is written as %q", k, results[i].key())
		}
	}
	run.Date = time.Now().UTC().Truncate(time.Second)
	run.Took = time.Since(start).Round(time.Second).String()
	f := &File{Version: 1, Runs: []RunInfo{run}, Rows: results}
	for i := range f.Rows {
		f.Rows[i].Run = run.ID
	}
	if o.Merge {
		f = merge(old, run, results, o, sel, o.Log)
	}
	return results, WriteAll(o.Out, f)
}

func startRedis(o Options, tmp string, extra ...string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, _ := os.MkdirTemp(tmp, "redis")
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", dir, "--logfile", "", "--daemonize", "no"}, extra...)
	return launch("redis", "redis-server", args, port, dir)
}

func startOrdo(o Options, tmp string, extra ...string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, _ := os.MkdirTemp(tmp, "ordo")
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", dir}, extra...)
	return launch("ordo", o.OrdoBin, args, port, dir, "GOMAXPROCS="+strconv.Itoa(o.OrdoProcs))
}

// startBoth starts redis-server and ordo-server for one row group; stop
// stops both (whichever started).
func startBoth(o Options, tmp string) (rs, ors *server, stop func(), err error) {
	if rs, err = startRedis(o, tmp); err != nil {
		return nil, nil, nil, err
	}
	if ors, err = startOrdo(o, tmp); err != nil {
		rs.stop()
		return nil, nil, nil, err
	}
	return rs, ors, func() { ors.stop(); rs.stop() }, nil
}

// freshRuns measures each server o.Repeat times, alternating, each run on
// a server started for it (with extra settings) and stopped after: the
// figures per server and the errors, named by server.
func freshRuns(o Options, tmp string, extra []string, measure func(s *server) (float64, error)) (rv, ov []float64, errs []string) {
	for i := 0; i < o.Repeat; i++ {
		for _, start := range []func(Options, string, ...string) (*server, error){startRedis, startOrdo} {
			s, err := start(o, tmp, extra...)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			x, err := measure(s)
			s.stop()
			switch {
			case err != nil:
				errs = append(errs, s.name+": "+err.Error())
			case s.name == "redis":
				rv = append(rv, x)
			default:
				ov = append(ov, x)
			}
		}
	}
	return rv, ov, errs
}

func launch(name, bin string, args []string, port int, dir string, env ...string) (*server, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	setPdeathsig(cmd)
	logf, _ := os.Create(filepath.Join(dir, name+".log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{name: name, cmd: cmd, addr: fmt.Sprintf("127.0.0.1:%d", port), port: port, dir: dir}
	if err := s.waitReady(30 * time.Second); err != nil {
		s.stop()
		return nil, fmt.Errorf("bench: %s did not start: %w", name, err)
	}
	return s, nil
}

// waitReady waits until PING answers PONG (not LOADING).
func (s *server) waitReady(d time.Duration) error {
	deadline := time.Now().Add(d)
	var last error
	for time.Now().Before(deadline) {
		v, err := s.do("PING")
		if err == nil && v.Str == "PONG" {
			return nil
		}
		last = err
		if err == nil {
			last = fmt.Errorf("%s", v.Str)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return last
}

func (s *server) do(args ...string) (resp.Value, error) {
	c, err := net.DialTimeout("tcp", s.addr, time.Second)
	if err != nil {
		return resp.Value{}, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := c.Write(resp.AppendCommand(nil, args...)); err != nil {
		return resp.Value{}, err
	}
	return resp.ReadReply(bufio.NewReader(c))
}

func (s *server) stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}

// rss is the resident set size of the server process in bytes.
func (s *server) rss() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, ln := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(ln, "VmRSS:") {
			f := strings.Fields(ln)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// cpu is the CPU time (user + system) the server process has used, from
// /proc/PID/stat; ok is false where there is no /proc.
func (s *server) cpu() (d time.Duration, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, false
	}
	// The fields after the command name (which may hold spaces): state is
	// field 3, utime and stime fields 14 and 15, in clock ticks (USER_HZ,
	// 100 on every Linux the bench runs on).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, true
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ---- throughput ----

type tpRow struct {
	name  string
	tests string   // redis-benchmark -t, or ""
	cmd   []string // a custom command
	subs  int      // subscribers to "bench:ch" reading all the while (PUBLISH rows)
}

// subscribe connects n clients subscribed to channel, each draining its
// messages as fast as it can until stop is called.
func subscribe(port, n int, channel string) (stop func(), err error) {
	var conns []net.Conn
	stop = func() {
		for _, c := range conns {
			c.Close()
		}
	}
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			stop()
			return nil, err
		}
		conns = append(conns, c)
		br := bufio.NewReader(c)
		if _, err := c.Write(resp.AppendCommand(nil, "SUBSCRIBE", channel)); err != nil {
			stop()
			return nil, err
		}
		if _, err := resp.ReadRawReply(br, nil); err != nil {
			stop()
			return nil, err
		}
		go io.Copy(io.Discard, br)
	}
	return stop, nil
}

// lockReleaseLibrary is the lock-release script as a function (FCALL).
const lockReleaseLibrary = "#!lua name=benchlock\nredis.register_function('release', function(keys, args) " +
	"if redis.call('get',keys[1]) == args[1] then return redis.call('del',keys[1]) else return 0 end end)"

var lockReleaseScript = "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end"

func throughputRows(o Options, sel *regexp.Regexp, tmp string) []Result {
	rows := []tpRow{
		{name: "PING", tests: "ping_mbulk"},
		{name: "SET", tests: "set"},
		{name: "GET", tests: "get"},
		{name: "INCR", tests: "incr"},
		{name: "HSET", tests: "hset"},
		{name: "SADD", tests: "sadd"},
		{name: "LPUSH", tests: "lpush"},
		{name: "LPOP", tests: "lpop"},
		{name: "ZADD", cmd: []string{"zadd", "myz", "__rand_int__", "m:__rand_int__"}},
		{name: "ZRANGEBYSCORE LIMIT", cmd: []string{"zrangebyscore", "myz", "100000", "+inf", "LIMIT", "0", "10"}},
		{name: "ZRANGEBYLEX LIMIT", cmd: []string{"zrangebylex", "myz", "[m:5", "(m:6", "LIMIT", "0", "10"}},
		{name: "ZRANK", cmd: []string{"zrank", "myz", "m:__rand_int__"}},
		{name: "SORT BY LIMIT", cmd: []string{"sort", "sortl", "BY", "sortw_*", "LIMIT", "0", "10"}},
		{name: "SORT 1000 LIMIT", cmd: []string{"sort", "sort1k", "LIMIT", "0", "10"}},
		{name: "SETBIT", cmd: []string{"setbit", "bm:__rand_int__", "1000", "1"}},
		{name: "BITCOUNT", cmd: []string{"bitcount", "bm:__rand_int__", "0", "-1"}},
		{name: "PFADD", cmd: []string{"pfadd", "hll", "ele:__rand_int__"}},
		{name: "PFCOUNT", cmd: []string{"pfcount", "hll"}},
		{name: "XADD MAXLEN ~", cmd: []string{"xadd", "bench:s", "MAXLEN", "~", "100000", "*", "name", "alice", "n", "__rand_int__"}},
		{name: "XRANGE COUNT 10", cmd: []string{"xrange", "bench:s", "-", "+", "COUNT", "10"}},
		{name: "EVALSHA lock release", cmd: []string{"evalsha", "SHA", "1", "lock:__rand_int__", "token"}},
		{name: "FCALL lock release", cmd: []string{"fcall", "release", "1", "lock:__rand_int__", "token"}},
		{name: "PUBLISH 1 subscriber", cmd: []string{"publish", "bench:ch", "message:__rand_int__"}, subs: 1},
		{name: "PUBLISH 50 subscribers", cmd: []string{"publish", "bench:ch", "message:__rand_int__"}, subs: 50},
	}
	rowName := func(r tpRow, pipe int) string { return fmt.Sprintf("%s -P %d", r.name, pipe) }
	var want []tpRow
	for _, r := range rows {
		if sel.MatchString("throughput "+rowName(r, 1)) || sel.MatchString("throughput "+rowName(r, 16)) {
			want = append(want, r)
		}
	}
	if len(want) == 0 {
		return nil
	}
	rs, ors, stop, err := startBoth(o, tmp)
	if err != nil {
		return []Result{{Group: "throughput", Name: "start", Err: err.Error()}}
	}
	defer stop()
	sha := map[*server]string{}
	for _, s := range []*server{rs, ors} {
		if v, err := s.do("SCRIPT", "LOAD", lockReleaseScript); err == nil && v.Kind == resp.KindBulk {
			sha[s] = v.Str
		}
		s.do("FUNCTION", "LOAD", "REPLACE", lockReleaseLibrary)
		// SORT's data: a list of 100 elements and their weights.
		for i := 0; i < 100; i++ {
			e := strconv.Itoa((i * 37) % 100)
			s.do("RPUSH", "sortl", e)
			s.do("SET", "sortw_"+e, strconv.Itoa((i*53)%100))
		}
		// and a set of 1,000 numbers, SORTed whole (the row).
		args := []string{"SADD", "sort1k"}
		for i := 0; i < 1000; i++ {
			args = append(args, strconv.Itoa(i*7919%1000000)) // distinct: 7919 is prime to 10^6
		}
		s.do(args...)
	}
	var out []Result
	for _, pipe := range []int{1, 16} {
		for _, r := range want {
			name := rowName(r, pipe)
			if !sel.MatchString("throughput " + name) {
				continue
			}
			var rr, orr, rp50, op50, rp99, op99 []float64
			var rcpu, ocpu, ccpu []float64 // µs of CPU per request: servers, redis-benchmark
			var errs []string
			for i := 0; i < o.Repeat; i++ {
				for _, s := range []*server{rs, ors} {
					args := []string{"-h", "127.0.0.1", "-p", strconv.Itoa(s.port), "-c", strconv.Itoa(o.Clients),
						"-n", strconv.Itoa(o.N), "-r", strconv.Itoa(o.Keyspace), "-P", strconv.Itoa(pipe), "--csv"}
					if r.tests != "" {
						args = append(args, "-t", r.tests)
					} else {
						cmd := append([]string(nil), r.cmd...)
						if cmd[0] == "evalsha" {
							if sha[s] == "" {
								errs = append(errs, s.name+": SCRIPT LOAD failed (no scripting)")
								continue
							}
							cmd[1] = sha[s]
						}
						args = append(args, cmd...)
					}
					var stopSubs func()
					if r.subs > 0 {
						var err error
						if stopSubs, err = subscribe(s.port, r.subs, "bench:ch"); err != nil {
							errs = append(errs, s.name+": subscribe: "+err.Error())
							continue
						}
					}
					cpu0, cpuOK := s.cpu()
					rps, p50, p99, client, err := runBenchmark(args)
					cpu1, _ := s.cpu()
					if stopSubs != nil {
						stopSubs()
					}
					if err != nil {
						errs = append(errs, s.name+": "+err.Error())
						continue
					}
					perReq := func(d time.Duration) float64 { return float64(d) / 1e3 / float64(o.N) }
					if s == rs {
						rr, rp50, rp99 = append(rr, rps), append(rp50, p50), append(rp99, p99)
					} else {
						orr, op50, op99 = append(orr, rps), append(op50, p50), append(op99, p99)
					}
					if cpuOK {
						if s == rs {
							rcpu = append(rcpu, perReq(cpu1-cpu0))
						} else {
							ocpu = append(ocpu, perReq(cpu1-cpu0))
						}
					}
					ccpu = append(ccpu, perReq(client))
				}
			}
			res := Result{Group: "throughput", Name: name, Unit: "req/s", HigherBetter: true,
				Redis: median(rr), Ordo: median(orr),
				Extra: fmt.Sprintf("p50 %.3f/%.3f ms, p99 %.3f/%.3f ms", median(rp50), median(op50), median(rp99), median(op99))}
			if len(rcpu) > 0 && len(ocpu) > 0 {
				res.Extra += fmt.Sprintf("; server CPU %.2f/%.2f µs/req, redis-benchmark %.2f", median(rcpu), median(ocpu), median(ccpu))
			}
			if len(errs) > 0 {
				res.Err = strings.Join(dedupe(errs), "; ")
			}
			o.Log("%-28s redis %10.0f  ordo %10.0f  ratio %.2f %s", name, res.Redis, res.Ordo, res.Ratio(), res.Err)
			out = append(out, res)
		}
	}
	return out
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// runBenchmark runs redis-benchmark --csv and returns rps, p50 and p99
// (ms), and the CPU time redis-benchmark itself used.
func runBenchmark(args []string) (rps, p50, p99 float64, client time.Duration, err error) {
	cmd := exec.Command("redis-benchmark", args...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, 0, err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return 0, 0, 0, 0, fmt.Errorf("redis-benchmark: %v %s", err, strings.TrimSpace(stderr.String()))
		}
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		<-done
		return 0, 0, 0, 0, fmt.Errorf("redis-benchmark timed out")
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil || len(recs) < 2 || len(recs[1]) < 7 {
		return 0, 0, 0, 0, fmt.Errorf("redis-benchmark: unexpected output %q %s", out.String(), strings.TrimSpace(stderr.String()))
	}
	if strings.Contains(stderr.String()+out.String(), "ERR") {
		return 0, 0, 0, 0, fmt.Errorf("redis-benchmark reported errors: %s", strings.TrimSpace(stderr.String()))
	}
	client = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	rps, _ = strconv.ParseFloat(recs[1][1], 64)
	p50, _ = strconv.ParseFloat(recs[1][4], 64)
	p99, _ = strconv.ParseFloat(recs[1][6], 64)
	return rps, p50, p99, client, nil
}

// ---- memory ----

type memRow struct {
	name string
	gen  func(i int, dst []byte) []byte // appends the i-th command
}

func memRowsDef() []memRow {
	return []memRow{
		{"strings (SET key:N value)", func(i int, dst []byte) []byte {
			return resp.AppendCommand(dst, "SET", "key:"+strconv.Itoa(i), "value:"+strconv.Itoa(i))
		}},
		{"hash fields (one hash)", func(i int, dst []byte) []byte {
			return resp.AppendCommand(dst, "HSET", "h", "field:"+strconv.Itoa(i), strconv.Itoa(i))
		}},
		{"set members (one set)", func(i int, dst []byte) []byte {
			return resp.AppendCommand(dst, "SADD", "s", "member:"+strconv.Itoa(i))
		}},
		{"list elements (RPUSH, one list)", func(i int, dst []byte) []byte {
			return resp.AppendCommand(dst, "RPUSH", "l", "element:"+strconv.Itoa(i))
		}},
		{"sorted-set members (user:N, random scores)", func(i int, dst []byte) []byte {
			return resp.AppendCommand(dst, "ZADD", "z", strconv.Itoa(int(splitmix(uint64(i))%1000000)), "user:"+strconv.Itoa(i))
		}},
		{"stream entries (XADD s * name alice age 31 city paris)", func(i int, dst []byte) []byte {
			return resp.AppendCommand(dst, "XADD", "s", "*", "name", "alice", "age", "31", "city", "paris")
		}},
	}
}

// memRowByPrefix returns the memory row whose name starts with prefix.
func memRowByPrefix(prefix string) memRow {
	for _, m := range memRowsDef() {
		if strings.HasPrefix(m.name, prefix) {
			return m
		}
	}
	panic("bench: no memory row " + prefix)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// load pipelines n commands to s and waits for every reply; it returns
// the number of error replies.
func load(s *server, n int, gen func(int, []byte) []byte) (int, error) {
	return loadReplies(s, n, gen, nil)
}

// loadReplies is load also passing each raw reply to onReply (if set).
func loadReplies(s *server, n int, gen func(int, []byte) []byte, onReply func(i int, raw []byte)) (int, error) {
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	errs := make(chan error, 1)
	go func() {
		bw := bufio.NewWriterSize(c, 1<<20)
		var buf []byte
		for i := 0; i < n; i++ {
			buf = gen(i, buf[:0])
			if _, err := bw.Write(buf); err != nil {
				errs <- err
				return
			}
		}
		errs <- bw.Flush()
	}()
	br := bufio.NewReaderSize(c, 1<<20)
	bad := 0
	var raw []byte
	for i := 0; i < n; i++ {
		raw, err = resp.ReadRawReply(br, raw[:0])
		if err != nil {
			return bad, err
		}
		if len(raw) > 0 && raw[0] == '-' {
			bad++
		}
		if onReply != nil {
			onReply(i, raw)
		}
	}
	return bad, <-errs
}

func memoryRows(o Options, sel *regexp.Regexp, tmp string) []Result {
	var out []Result
	for _, m := range memRowsDef() {
		name := fmt.Sprintf("RSS after %d %s", o.Elements, m.name)
		if !sel.MatchString("memory " + name) {
			continue
		}
		rv, ov, errs := freshRuns(o, tmp, nil, func(s *server) (float64, error) {
			bad, err := load(s, o.Elements, m.gen)
			if err == nil && bad > 0 {
				err = fmt.Errorf("%d error replies", bad)
			}
			if err != nil {
				return 0, err
			}
			time.Sleep(2 * time.Second) // let allocators settle before reading RSS
			return float64(s.rss()), nil
		})
		res := Result{Group: "memory", Name: name, Unit: "MiB RSS", Redis: median(rv) / (1 << 20), Ordo: median(ov) / (1 << 20)}
		res.Extra = fmt.Sprintf("%.0f / %.0f bytes per element (whole process)", median(rv)/float64(o.Elements), median(ov)/float64(o.Elements))
		if len(errs) > 0 {
			res.Err = strings.Join(dedupe(errs), "; ")
		}
		o.Log("%-50s redis %7.1f MiB  ordo %7.1f MiB  ratio %.2f %s", name, res.Redis, res.Ordo, res.Ratio(), res.Err)
		out = append(out, res)
	}
	return out
}

// ---- bulk load through redis-cli --pipe ----

func loadRows(o Options, sel *regexp.Regexp, tmp string) []Result {
	name := fmt.Sprintf("redis-cli --pipe of %d ZADD", o.Elements)
	if !sel.MatchString("load " + name) {
		return nil
	}
	file := filepath.Join(tmp, "zadd.resp")
	f, err := os.Create(file)
	if err != nil {
		return []Result{{Group: "load", Name: name, Err: err.Error()}}
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	// By name: the row the load replays is the sorted-set one (an index
	// went stale once a list row was added, and the row silently timed RPUSH).
	gen := memRowByPrefix("sorted-set").gen
	for i := 0; i < o.Elements; i++ {
		buf = gen(i, buf[:0])
		bw.Write(buf)
	}
	bw.Flush()
	f.Close()
	rv, ov, errs := freshRuns(o, tmp, nil, func(s *server) (float64, error) {
		in, _ := os.Open(file)
		defer in.Close()
		cmd := exec.Command("redis-cli", "-h", "127.0.0.1", "-p", strconv.Itoa(s.port), "--pipe")
		cmd.Stdin = in
		t0 := time.Now()
		outb, err := cmd.CombinedOutput()
		el := time.Since(t0).Seconds()
		if want := fmt.Sprintf("errors: 0, replies: %d", o.Elements); err != nil || !strings.Contains(string(outb), want) {
			return 0, fmt.Errorf("%v %q", err, lastLine(string(outb)))
		}
		return el, nil
	})
	res := Result{Group: "load", Name: name, Unit: "seconds to last reply", Redis: median(rv), Ordo: median(ov)}
	if len(errs) > 0 {
		res.Err = strings.Join(dedupe(errs), "; ")
	}
	o.Log("%-50s redis %6.2f s  ordo %6.2f s  ratio %.2f %s", name, res.Redis, res.Ordo, res.Ratio(), res.Err)
	return []Result{res}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// ---- restart: reload 1M keys from each server's own append-only file ----

func restartRows(o Options, sel *regexp.Regexp, tmp string) []Result {
	name := fmt.Sprintf("restart with %d keys (own AOF)", o.Elements)
	if !sel.MatchString("restart " + name) {
		return nil
	}
	var rv, ov, rm, om []float64
	var errs []string
	gen := memRowByPrefix("strings").gen
	for i := 0; i < o.Repeat; i++ {
		for _, name := range []string{"redis", "ordo"} {
			var s *server
			var err error
			if name == "redis" {
				s, err = startRedis(o, tmp, "--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--appendfsync", "everysec")
			} else {
				s, err = startOrdo(o, tmp, "--appendonly", "yes", "--appendfsync", "everysec")
			}
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			if bad, err := load(s, o.Elements, gen); err != nil || bad > 0 {
				errs = append(errs, fmt.Sprintf("%s: load: %v (%d errors)", name, err, bad))
				s.stop()
				continue
			}
			if name == "redis" {
				// Compact Redis's AOF too, so both reload a rewritten file.
				s.do("BGREWRITEAOF")
				for j := 0; j < 600; j++ {
					v, _ := s.do("INFO", "persistence")
					if strings.Contains(v.Str, "aof_rewrite_in_progress:0") && !strings.Contains(v.Str, "aof_rewrite_scheduled:1") {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
			}
			// A clean shutdown, then the same command line again.
			s.cmd.Process.Signal(syscall.SIGTERM)
			waitExit(s.cmd, 60*time.Second)
			args := s.cmd.Args[1:]
			t0 := time.Now()
			s2, err := launch(name, s.cmd.Path, args, s.port, s.dir, s.cmd.Env...)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			el := time.Since(t0).Seconds()
			v, _ := s2.do("DBSIZE")
			if v.Int != int64(o.Elements) {
				errs = append(errs, fmt.Sprintf("%s: %d keys after restart, want %d", name, v.Int, o.Elements))
			} else if name == "redis" {
				rv, rm = append(rv, el), append(rm, float64(s2.rss()))
			} else {
				ov, om = append(ov, el), append(om, float64(s2.rss()))
			}
			s2.stop()
		}
	}
	res := Result{Group: "restart", Name: name, Unit: "seconds to ready", Redis: median(rv), Ordo: median(ov),
		Extra: fmt.Sprintf("RSS after reload %.0f / %.0f MiB", median(rm)/(1<<20), median(om)/(1<<20))}
	if len(errs) > 0 {
		res.Err = strings.Join(dedupe(errs), "; ")
	}
	o.Log("%-50s redis %6.2f s  ordo %6.2f s  ratio %.2f %s", name, res.Redis, res.Ordo, res.Ratio(), res.Err)
	return []Result{res}
}

func waitExit(cmd *exec.Cmd, d time.Duration) {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
	}
}

// ---- report ----

func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, ln := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(ln, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(ln, ":", 2)[1])
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
		if len(f) >= 2 {
			kb, _ := strconv.ParseFloat(f[1], 64)
			mem = fmt.Sprintf(", %.0f GiB RAM", kb/(1<<20))
		}
	}
	return fmt.Sprintf("%d cores (%s)%s, %s/%s", runtime.NumCPU(), cpu, mem, runtime.GOOS, runtime.GOARCH)
}

func version(bin string, args ...string) string {
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func fmtNum(x float64) string {
	switch {
	case x >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// ---- cache: allkeys-lru at maxmemory of half the data set ----

// infoInt reads one integer field of INFO section.
func infoInt(s *server, section, field string) (int64, error) {
	v, err := s.do("INFO", section)
	if err != nil {
		return 0, err
	}
	for _, ln := range strings.Split(v.Str, "\r\n") {
		if x, ok := strings.CutPrefix(ln, field+":"); ok {
			return strconv.ParseInt(x, 10, 64)
		}
	}
	return 0, fmt.Errorf("INFO %s has no %s", section, field)
}

// cacheRows loads Elements/10 keys of 100 bytes, sets maxmemory to the
// server's used memory before the load plus half of what the load took
// (each server by its own accounting), then runs N random commands, 90%
// GET and 10% SET, 80% of them on a hot fifth of the keys. The figure
// is the GET hit rate (counted from the replies): how well each server's LRU approximation keeps the
// hot keys.
func cacheRows(o Options, sel *regexp.Regexp, tmp string) []Result {
	n := max(o.Elements/10, 1000)
	name := fmt.Sprintf("allkeys-lru, maxmemory of half of %d keys, random GET/SET", n)
	if !sel.MatchString("cache " + name) {
		return nil
	}
	value := strings.Repeat("v", 100)
	key := func(i uint64) string {
		h := splitmix(i)
		k := h % uint64(n)
		if h>>60 < 13 { // 80%: the hot fifth
			k = h % uint64(max(n/5, 1))
		}
		return "key:" + strconv.FormatUint(k, 10)
	}
	rv, ov, errs := freshRuns(o, tmp, []string{"--maxmemory-policy", "allkeys-lru"}, func(s *server) (float64, error) {
		before, err := infoInt(s, "memory", "used_memory")
		if err != nil {
			return 0, err
		}
		// Loaded in a scattered order (i*step mod n, step a prime not
		// dividing n), so the hot keys are not all the oldest when
		// maxmemory is set: the row measures how well the LRU keeps the
		// keys the run reads.
		step := 7919
		if n%step == 0 {
			step = 7907
		}
		if _, err := load(s, n, func(i int, dst []byte) []byte {
			return resp.AppendCommand(dst, "SET", "key:"+strconv.Itoa(i*step%n), value)
		}); err != nil {
			return 0, err
		}
		after, err := infoInt(s, "memory", "used_memory")
		if err != nil {
			return 0, err
		}
		if _, err := s.do("CONFIG", "SET", "maxmemory", strconv.FormatInt(before+(after-before)/2, 10)); err != nil {
			return 0, err
		}
		isGet := func(i int) bool { return splitmix(uint64(i))%10 != 0 }
		var hits, gets int
		bad, err := loadReplies(s, o.N, func(i int, dst []byte) []byte {
			k := key(uint64(i) + 1<<32)
			if !isGet(i) {
				return resp.AppendCommand(dst, "SET", k, value)
			}
			return resp.AppendCommand(dst, "GET", k)
		}, func(i int, raw []byte) {
			if isGet(i) {
				gets++
				if !bytes.HasPrefix(raw, []byte("$-1")) {
					hits++
				}
			}
		})
		if err == nil && bad > 0 {
			err = fmt.Errorf("%d error replies", bad)
		}
		if err != nil {
			return 0, err
		}
		return 100 * float64(hits) / float64(max(gets, 1)), nil
	})
	res := Result{Group: "cache", Name: name, Unit: "% GET hits", Redis: median(rv), Ordo: median(ov), HigherBetter: true}
	if len(errs) > 0 {
		res.Err = strings.Join(dedupe(errs), "; ")
	}
	o.Log("%-50s redis %5.1f%%  ordo %5.1f%%  ratio %.2f %s", name, res.Redis, res.Ordo, res.Ratio(), res.Err)
	return []Result{res}
}
