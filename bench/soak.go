package bench

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

// ---- soak: sustained mixed load with durability and AOF rewrites ----

// soakSettings are given to both servers: the AOF on with everysec, and
// automatic rewrites early and often, so several run during the soak.
var soakSettings = []string{"--appendonly", "yes", "--appendfsync", "everysec",
	"--auto-aof-rewrite-percentage", "100", "--auto-aof-rewrite-min-size", "16mb"}

// soakTests is redis-benchmark's mixed load (each test runs -n requests,
// in turn, looping with -l until stopped).
const soakTests = "set,get,incr,lpush,lpop,sadd,hset,zadd"

type soakRun struct {
	ops           float64 // commands per second over the run
	p50, p99, max float64 // PING round trips, ms
	rssMin        float64 // bytes, sampled every 2 s after the first 10 s
	rssMax        float64
	rewrites      int // AOF rewrites seen running
	acked, lost   int // acknowledged INCRs, and how many of them a final GET missed
}

// soakRows runs the soak on each server (o.Soak long): redis-benchmark
// -c 50 -P 8 over 200,000 keys, one writer whose INCRs are counted as
// acknowledged, and a prober sending PING every 10 ms (its latencies are
// what a client sees while rewrites and collections run).
func soakRows(o Options, sel *regexp.Regexp, tmp string) []Result {
	if o.Soak <= 0 || !sel.MatchString("soak") {
		return nil
	}
	runs := map[string][]soakRun{}
	var errs []string
	for i := 0; i < o.Repeat; i++ {
		for _, start := range []func(Options, string, ...string) (*server, error){startRedis, startOrdo} {
			s, err := start(o, tmp, soakSettings...)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			r, err := soak(s, o.Soak)
			s.stop()
			if err != nil {
				errs = append(errs, s.name+": "+err.Error())
				continue
			}
			o.Log("soak %s: %.0f ops/s, PING p50 %.2f p99 %.2f max %.2f ms, RSS %.0f-%.0f MiB, %d rewrites, %d acked INCRs, %d lost",
				s.name, r.ops, r.p50, r.p99, r.max, r.rssMin/(1<<20), r.rssMax/(1<<20), r.rewrites, r.acked, r.lost)
			runs[s.name] = append(runs[s.name], r)
		}
	}
	pick := func(name string, f func(soakRun) float64) float64 {
		var xs []float64
		for _, r := range runs[name] {
			xs = append(xs, f(r))
		}
		return median(xs)
	}
	extra := func(f func(soakRun) int) string {
		return fmt.Sprintf("%.0f / %.0f", pick("redis", func(r soakRun) float64 { return float64(f(r)) }),
			pick("ordo", func(r soakRun) float64 { return float64(f(r)) }))
	}
	d := o.Soak.Round(time.Second)
	row := func(name, unit string, higher bool, f func(soakRun) float64, ex string) Result {
		r := Result{Group: "soak", Name: fmt.Sprintf("%s (%v mixed load, AOF everysec, rewrites)", name, d), Unit: unit,
			Redis: pick("redis", f), Ordo: pick("ordo", f), HigherBetter: higher, Extra: ex}
		if len(errs) > 0 {
			r.Err = fmt.Sprint(dedupe(errs))
		}
		return r
	}
	return []Result{
		row("operations", "ops/s", true, func(r soakRun) float64 { return r.ops },
			"AOF rewrites "+extra(func(r soakRun) int { return r.rewrites })+"; acknowledged INCRs lost "+extra(func(r soakRun) int { return r.lost })),
		row("PING p99", "ms", false, func(r soakRun) float64 { return r.p99 },
			fmt.Sprintf("p50 %.2f / %.2f ms", pick("redis", func(r soakRun) float64 { return r.p50 }), pick("ordo", func(r soakRun) float64 { return r.p50 }))),
		row("PING max", "ms", false, func(r soakRun) float64 { return r.max }, ""),
		row("RSS max", "MiB", false, func(r soakRun) float64 { return r.rssMax / (1 << 20) },
			fmt.Sprintf("min %.0f / %.0f MiB", pick("redis", func(r soakRun) float64 { return r.rssMin / (1 << 20) }), pick("ordo", func(r soakRun) float64 { return r.rssMin / (1 << 20) }))),
	}
}

func soak(s *server, d time.Duration) (soakRun, error) {
	var r soakRun
	before, err := infoInt(s, "stats", "total_commands_processed")
	if err != nil {
		return r, err
	}
	bench := exec.Command("redis-benchmark", "-p", strconv.Itoa(s.port), "-c", "50", "-P", "8",
		"-r", "200000", "-n", "200000", "-l", "-q", "-t", soakTests)
	setPdeathsig(bench)
	if err := bench.Start(); err != nil {
		return r, err
	}
	t0 := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var lat []float64
	var probeErr, writerErr error
	wg.Add(3)
	go func() { // PING prober
		defer wg.Done()
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			probeErr = err
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		ping := resp.AppendCommand(nil, "PING")
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			c.SetDeadline(time.Now().Add(30 * time.Second))
			st := time.Now()
			if _, err := c.Write(ping); err != nil {
				probeErr = err
				return
			}
			if _, err := resp.ReadRawReply(br, nil); err != nil {
				probeErr = err
				return
			}
			lat = append(lat, float64(time.Since(st).Microseconds())/1000)
		}
	}()
	go func() { // acknowledged writer
		defer wg.Done()
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			writerErr = err
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		incr := resp.AppendCommand(nil, "INCR", "soak:acked")
		for {
			select {
			case <-stop:
				return
			default:
			}
			c.SetDeadline(time.Now().Add(30 * time.Second))
			if _, err := c.Write(incr); err != nil {
				writerErr = err
				return
			}
			v, err := resp.ReadReply(br)
			if err != nil {
				writerErr = err
				return
			}
			if v.Kind == resp.KindInt {
				r.acked = int(v.Int)
			}
		}
	}()
	go func() { // RSS and rewrites
		defer wg.Done()
		inRewrite := false
		lastRSS := time.Time{}
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if v, err := infoInt(s, "persistence", "aof_rewrite_in_progress"); err == nil {
				if v == 1 && !inRewrite {
					r.rewrites++
				}
				inRewrite = v == 1
			}
			if time.Since(t0) > 10*time.Second && time.Since(lastRSS) >= 2*time.Second {
				lastRSS = time.Now()
				x := float64(s.rss())
				if r.rssMin == 0 || x < r.rssMin {
					r.rssMin = x
				}
				r.rssMax = max(r.rssMax, x)
			}
		}
	}()
	time.Sleep(d)
	close(stop)
	wg.Wait()
	elapsed := time.Since(t0)
	bench.Process.Kill()
	bench.Wait()
	after, err := infoInt(s, "stats", "total_commands_processed")
	if err != nil {
		return r, err
	}
	if probeErr != nil || writerErr != nil {
		return r, fmt.Errorf("prober: %v, writer: %v", probeErr, writerErr)
	}
	// Every acknowledged INCR is there after kill -9 and a restart from
	// the AOF (everysec writes before replying, in both servers).
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s2, err := launch(s.name, s.cmd.Path, s.cmd.Args[1:], s.port, s.dir, s.cmd.Env...)
	if err != nil {
		return r, err
	}
	v, err := s2.do("GET", "soak:acked")
	s2.stop()
	if err != nil {
		return r, err
	}
	if got, _ := strconv.Atoi(v.Str); got < r.acked {
		r.lost = r.acked - got
	}
	r.ops = float64(after-before) / elapsed.Seconds()
	slices.Sort(lat)
	if n := len(lat); n > 0 {
		r.p50, r.p99, r.max = lat[n/2], lat[n*99/100], lat[n-1]
	}
	return r, nil
}
