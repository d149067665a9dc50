package bench

// ---- repl: replication, redis-server → redis-server against ordo-server → ordo-server ----
//
// Each trial starts a master and an empty replica of the same kind (both
// with their defaults, diskless transfer, but repl-diskless-sync-delay 0
// so Redis's 5 s wait for more replicas is not timed), loads the master,
// and measures:
//
//   - the full sync: REPLICAOF until the replica reports
//     master_link_status:up and holds every key;
//   - the master's memory meanwhile: the proportional set size (Pss) of
//     the master process plus its children, sampled every 20 ms (Redis
//     forks a child that writes the RDB; copy-on-write pages are shared,
//     so Pss, not RSS, adds up to what the machine spends), the peak;
//   - the replication lag under a bounded redis-benchmark SET load on
//     the master: a probe writes a fresh key on the master every 20 ms
//     and times until a GET on the replica sees it; the replication
//     offsets (master_repl_offset minus the replica's slave_repl_offset)
//     are sampled meanwhile.

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// procTreePss is the Pss of pid and of its child processes, in bytes.
func procTreePss(pid int) int64 {
	total := pssOf(pid)
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				total += pssOf(c)
			}
		}
	}
	return total
}

func pssOf(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for _, ln := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(ln, "Pss:") {
			f := strings.Fields(ln)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// infoField reads one field of an INFO section as text.
func infoField(s *server, section, field string) (string, error) {
	v, err := s.do("INFO", section)
	if err != nil {
		return "", err
	}
	if v.Kind == resp.KindError {
		return "", fmt.Errorf("%s", v.Str)
	}
	for _, ln := range strings.Split(v.Str, "\r\n") {
		if x, ok := strings.CutPrefix(ln, field+":"); ok {
			return x, nil
		}
	}
	return "", fmt.Errorf("INFO %s has no %s", section, field)
}

type replTrial struct {
	syncSecs       float64
	peakMem        float64 // bytes, master + children Pss
	baseMem        float64
	peakRSS        float64 // master process alone
	visP50, visP99 float64 // ms
	visMax         float64
	lagBytes       float64 // median offset difference
	loadRPS        float64
}

func replRows(o Options, sel *regexp.Regexp, tmp string) []Result {
	syncName := fmt.Sprintf("full sync of %d keys, REPLICAOF to link up", o.Elements)
	memName := fmt.Sprintf("master memory peak during the full sync of %d keys (Pss, master + fork child)", o.Elements)
	visName := fmt.Sprintf("write visible on the replica under redis-benchmark SET -P 16 (%d requests), p50", o.N)
	visMaxName := fmt.Sprintf("write visible on the replica under redis-benchmark SET -P 16 (%d requests), max", o.N)
	lagName := fmt.Sprintf("replication offset lag under redis-benchmark SET -P 16 (%d requests), median", o.N)
	names := []string{syncName, memName, visName, visMaxName, lagName}
	want := false
	for _, n := range names {
		want = want || sel.MatchString("repl "+n)
	}
	if !want {
		return nil
	}
	trials := map[string][]replTrial{}
	var errs []string
	for i := 0; i < o.Repeat; i++ {
		for _, kind := range []string{"redis", "ordo"} {
			t, err := replTrialRun(o, tmp, kind)
			if err != nil {
				errs = append(errs, kind+": "+err.Error())
				o.Log("repl %s trial %d: %v", kind, i+1, err)
				continue
			}
			o.Log("repl %-5s sync %.2f s, peak %.0f MiB (base %.0f), visible p50 %.2f ms max %.1f ms, lag %.0f B, load %.0f req/s",
				kind, t.syncSecs, t.peakMem/(1<<20), t.baseMem/(1<<20), t.visP50, t.visMax, t.lagBytes, t.loadRPS)
			trials[kind] = append(trials[kind], t)
		}
	}
	med := func(kind string, f func(replTrial) float64) float64 {
		var xs []float64
		for _, t := range trials[kind] {
			xs = append(xs, f(t))
		}
		return median(xs)
	}
	errStr := strings.Join(dedupe(errs), "; ")
	var out []Result
	add := func(name, unit string, f func(replTrial) float64, extra string) {
		if !sel.MatchString("repl " + name) {
			return
		}
		res := Result{Group: "repl", Name: name, Unit: unit, Redis: med("redis", f), Ordo: med("ordo", f), Extra: extra, Err: errStr}
		o.Log("%-60s redis %10.2f  ordo %10.2f  ratio %.2f %s", name, res.Redis, res.Ordo, res.Ratio(), res.Err)
		out = append(out, res)
	}
	mib := func(f func(replTrial) float64) func(replTrial) float64 {
		return func(t replTrial) float64 { return f(t) / (1 << 20) }
	}
	add(syncName, "seconds", func(t replTrial) float64 { return t.syncSecs }, "both diskless (the defaults), repl-diskless-sync-delay 0")
	add(memName, "MiB", mib(func(t replTrial) float64 { return t.peakMem }),
		fmt.Sprintf("before the sync %.0f / %.0f MiB; peak RSS of the master process alone %.0f / %.0f MiB",
			med("redis", func(t replTrial) float64 { return t.baseMem })/(1<<20), med("ordo", func(t replTrial) float64 { return t.baseMem })/(1<<20),
			med("redis", func(t replTrial) float64 { return t.peakRSS })/(1<<20), med("ordo", func(t replTrial) float64 { return t.peakRSS })/(1<<20)))
	loadNote := fmt.Sprintf("load on the master %.0f / %.0f req/s", med("redis", func(t replTrial) float64 { return t.loadRPS }), med("ordo", func(t replTrial) float64 { return t.loadRPS }))
	add(visName, "ms", func(t replTrial) float64 { return t.visP50 },
		fmt.Sprintf("p99 %.2f / %.2f ms; %s", med("redis", func(t replTrial) float64 { return t.visP99 }), med("ordo", func(t replTrial) float64 { return t.visP99 }), loadNote))
	add(visMaxName, "ms", func(t replTrial) float64 { return t.visMax }, loadNote)
	add(lagName, "bytes", func(t replTrial) float64 { return t.lagBytes }, "master_repl_offset − the replica's slave_repl_offset, sampled every 20 ms (two INFO calls, not atomic); "+loadNote)
	return out
}

// replTrialRun runs one trial with a master and a replica of kind.
func replTrialRun(o Options, tmp, kind string) (replTrial, error) {
	var t replTrial
	start := startRedis
	if kind == "ordo" {
		start = startOrdo
	}
	m, err := start(o, tmp, "--repl-diskless-sync-delay", "0")
	if err != nil {
		return t, err
	}
	defer m.stop()
	r, err := start(o, tmp, "--repl-diskless-sync-delay", "0")
	if err != nil {
		return t, err
	}
	defer r.stop()
	if bad, err := load(m, o.Elements, memRowsDef()[0].gen); err != nil || bad > 0 {
		return t, fmt.Errorf("loading the master: %v (%d errors)", err, bad)
	}
	time.Sleep(time.Second)
	t.baseMem = float64(procTreePss(m.cmd.Process.Pid))

	// The full sync, with the master's memory sampled meanwhile.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			t.peakMem = max(t.peakMem, float64(procTreePss(m.cmd.Process.Pid)))
			t.peakRSS = max(t.peakRSS, float64(m.rss()))
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	t0 := time.Now()
	v, err := r.do("REPLICAOF", "127.0.0.1", strconv.Itoa(m.port))
	if err == nil && v.Kind == resp.KindError {
		err = fmt.Errorf("REPLICAOF: %s", v.Str)
	}
	if err == nil {
		err = waitSynced(r, int64(o.Elements), 300*time.Second)
	}
	t.syncSecs = time.Since(t0).Seconds()
	close(stop)
	wg.Wait()
	if err != nil {
		return t, err
	}

	// Lag under load.
	bench := exec.Command("redis-benchmark", "-h", "127.0.0.1", "-p", strconv.Itoa(m.port), "-c", strconv.Itoa(o.Clients),
		"-n", strconv.Itoa(o.N), "-r", strconv.Itoa(o.Keyspace), "-P", "16", "-t", "set", "--csv")
	var bout strings.Builder
	bench.Stdout = &bout
	done := make(chan error, 1)
	if err := bench.Start(); err != nil {
		return t, err
	}
	go func() { done <- bench.Wait() }()
	vis, lags, err := probeLag(m, r, done)
	if err != nil {
		return t, err
	}
	if rows := strings.Split(strings.TrimSpace(bout.String()), "\n"); len(rows) >= 2 {
		f := strings.Split(rows[1], ",")
		if len(f) > 1 {
			t.loadRPS, _ = strconv.ParseFloat(strings.Trim(f[1], `"`), 64)
		}
	}
	if len(vis) == 0 {
		return t, fmt.Errorf("no probe completed during the load")
	}
	slices.Sort(vis)
	n := len(vis)
	t.visP50, t.visP99, t.visMax = vis[n/2], vis[n*99/100], vis[n-1]
	t.lagBytes = median(lags)
	return t, nil
}

// waitSynced waits until r's link to its master is up and it holds keys
// keys.
func waitSynced(r *server, keys int64, d time.Duration) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if st, err := infoField(r, "replication", "master_link_status"); err == nil && st == "up" {
			if v, err := r.do("DBSIZE"); err == nil && v.Kind == resp.KindInt && v.Int == keys {
				return nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("the replica did not finish its full sync within %v", d)
}

// probeLag writes probe keys on m every 20 ms until done reports (the
// load ended) and times until each is visible on r (ms); it samples the
// offset difference meanwhile.
func probeLag(m, r *server, done <-chan error) (vis, lags []float64, err error) {
	dial := func(s *server) (net.Conn, *bufio.Reader, error) {
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			return nil, nil, err
		}
		return c, bufio.NewReader(c), nil
	}
	mc, mbr, err := dial(m)
	if err != nil {
		return nil, nil, err
	}
	defer mc.Close()
	rc, rbr, err := dial(r)
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	do := func(c net.Conn, br *bufio.Reader, args ...string) (resp.Value, error) {
		c.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := c.Write(resp.AppendCommand(nil, args...)); err != nil {
			return resp.Value{}, err
		}
		return resp.ReadReply(br)
	}
	offset := func(c net.Conn, br *bufio.Reader, field string) (int64, bool) {
		v, err := do(c, br, "INFO", "replication")
		if err != nil {
			return 0, false
		}
		for _, ln := range strings.Split(v.Str, "\r\n") {
			if x, ok := strings.CutPrefix(ln, field+":"); ok {
				n, err := strconv.ParseInt(x, 10, 64)
				return n, err == nil
			}
		}
		return 0, false
	}
	for i := 0; ; i++ {
		select {
		case err := <-done:
			if err != nil {
				return vis, lags, fmt.Errorf("redis-benchmark: %v", err)
			}
			return vis, lags, nil
		case <-time.After(20 * time.Millisecond):
		}
		if mo, ok := offset(mc, mbr, "master_repl_offset"); ok {
			if ro, ok := offset(rc, rbr, "slave_repl_offset"); ok {
				lags = append(lags, float64(max(mo-ro, 0)))
			}
		}
		key, val := "bench:probe:"+strconv.Itoa(i), strconv.Itoa(i)
		if _, err := do(mc, mbr, "SET", key, val); err != nil {
			return vis, lags, err
		}
		t0 := time.Now()
		for {
			v, err := do(rc, rbr, "GET", key)
			if err != nil {
				return vis, lags, err
			}
			if v.Str == val {
				break
			}
			if time.Since(t0) > 30*time.Second {
				return vis, lags, fmt.Errorf("probe key not replicated within 30 s")
			}
			time.Sleep(100 * time.Microsecond)
		}
		vis = append(vis, float64(time.Since(t0).Microseconds())/1000)
	}
}
