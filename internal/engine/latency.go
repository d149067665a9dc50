package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The latency monitor, as Redis 7.0's latency.c: with
// latency-monitor-threshold > 0, every event (a command, "fast-command"
// for commands flagged fast, "expire-cycle", "eviction-cycle",
// "aof-fsync-always" ...) lasting at least that many milliseconds is
// recorded in the event's time series: 160 samples of (unix second,
// worst latency in that second), plus the all-time maximum. LATENCY
// LATEST, HISTORY, RESET, GRAPH and DOCTOR report them with Redis's
// texts. The series have their own mutex: persistence records fsyncs
// without the engine lock.

const latencyTSLen = 160

type latencySample struct {
	time    int64 // unix seconds; 0: unused
	latency int64 // ms
}

type latencySeries struct {
	idx     int
	max     int64
	samples [latencyTSLen]latencySample
}

type latencyState struct {
	threshold atomic.Int64 // latency-monitor-threshold
	mu        sync.Mutex
	events    map[string]*latencySeries
	order     []string // event names in creation order (Redis answers in its dict's order)
}

// LatencySample records latency ms for event if it reaches
// latency-monitor-threshold (Redis's latencyAddSampleIfNeeded). Safe
// without the engine lock.
func (e *Engine) LatencySample(event string, ms int64) {
	th := e.latency.threshold.Load()
	if th == 0 || ms < th {
		return
	}
	l := &e.latency
	l.mu.Lock()
	defer l.mu.Unlock()
	ts := l.events[event]
	if ts == nil {
		if l.events == nil {
			l.events = map[string]*latencySeries{}
		}
		ts = &latencySeries{}
		l.events[event] = ts
		l.order = append(l.order, event)
	}
	if ms > ts.max {
		ts.max = ms
	}
	now := time.Now().Unix()
	prev := (ts.idx + latencyTSLen - 1) % latencyTSLen
	if ts.samples[prev].time == now {
		if ms > ts.samples[prev].latency {
			ts.samples[prev].latency = ms
		}
		return
	}
	ts.samples[ts.idx] = latencySample{now, ms}
	ts.idx = (ts.idx + 1) % latencyTSLen
}

// latencyEnd records the time since t0 for event.
func (e *Engine) latencyEnd(event string, t0 time.Time) {
	if e.latency.threshold.Load() > 0 {
		e.LatencySample(event, time.Since(t0).Milliseconds())
	}
}

// watchLatencyThreshold keeps latency-monitor-threshold at hand for the
// per-command check.
func (e *Engine) watchLatencyThreshold(cfg *Config) {
	e.latency.threshold.Store(cfg.Int("latency-monitor-threshold"))
	cfg.OnChange("latency-monitor-threshold", func(v string) error {
		n, _ := strconv.ParseInt(v, 10, 64)
		e.latency.threshold.Store(n)
		return nil
	})
}

func registerLatency(t *Table) {
	t.register("latency|latest", func(c *Ctx) {
		l := &c.E.latency
		l.mu.Lock()
		defer l.mu.Unlock()
		c.W.Array(len(l.order))
		for _, ev := range l.order {
			ts := l.events[ev]
			last := ts.samples[(ts.idx+latencyTSLen-1)%latencyTSLen]
			c.W.Array(4)
			c.W.BulkString(ev)
			c.W.Int(last.time)
			c.W.Int(last.latency)
			c.W.Int(ts.max)
		}
	})
	t.register("latency|history", func(c *Ctx) {
		l := &c.E.latency
		l.mu.Lock()
		defer l.mu.Unlock()
		ts := l.events[string(c.Args[2])]
		if ts == nil {
			c.W.Array(0)
			return
		}
		var samples []latencySample
		for j := 0; j < latencyTSLen; j++ {
			s := ts.samples[(ts.idx+j)%latencyTSLen]
			if s.time != 0 {
				samples = append(samples, s)
			}
		}
		c.W.Array(len(samples))
		for _, s := range samples {
			c.W.Array(2)
			c.W.Int(s.time)
			c.W.Int(s.latency)
		}
	})
	t.register("latency|reset", func(c *Ctx) {
		l := &c.E.latency
		l.mu.Lock()
		defer l.mu.Unlock()
		resets := 0
		reset := func(name string) {
			for i, ev := range l.order {
				if strings.EqualFold(ev, name) || name == "" {
					delete(l.events, ev)
					l.order = slices.Delete(l.order, i, i+1)
					resets++
					return
				}
			}
		}
		if len(c.Args) == 2 {
			resets = len(l.order)
			clear(l.events)
			l.order = l.order[:0]
		} else {
			for _, a := range c.Args[2:] {
				reset(string(a))
			}
		}
		c.W.Int(int64(resets))
	})
	t.register("latency|graph", func(c *Ctx) {
		l := &c.E.latency
		l.mu.Lock()
		defer l.mu.Unlock()
		ev := string(c.Args[2])
		ts := l.events[ev]
		if ts == nil {
			c.W.Error("ERR No samples available for event '" + string(cString(c.Args[2])) + "'")
			return
		}
		c.W.Verbatim("txt", latencyGraph(ev, ts))
	})
	t.register("latency|doctor", func(c *Ctx) {
		c.W.Verbatim("txt", c.E.latencyReport())
	})
}

// latencyGraph is Redis's latencyCommandGenSparkeline.
func latencyGraph(event string, ts *latencySeries) string {
	var seq sparkSeq
	var lo, hi int64
	now := time.Now().Unix()
	for j := 0; j < latencyTSLen; j++ {
		s := ts.samples[(ts.idx+j)%latencyTSLen]
		if s.time == 0 {
			continue
		}
		if len(seq.samples) == 0 {
			lo, hi = s.latency, s.latency
		} else {
			hi, lo = max(hi, s.latency), min(lo, s.latency)
		}
		elapsed := now - s.time
		var label string
		switch {
		case elapsed < 60:
			label = fmt.Sprintf("%ds", elapsed)
		case elapsed < 3600:
			label = fmt.Sprintf("%dm", elapsed/60)
		case elapsed < 3600*24:
			label = fmt.Sprintf("%dh", elapsed/3600)
		default:
			label = fmt.Sprintf("%dd", elapsed/(3600*24))
		}
		seq.add(float64(s.latency), label)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", event, hi, lo, ts.max)
	b.WriteString(strings.Repeat("-", 80))
	b.WriteByte('\n')
	seq.render(&b, 80, 4)
	return b.String()
}

// sparkSeq is Redis's sparkline.c sequence, rendered with SPARKLINE_FILL.
type sparkSeq struct {
	samples  []sparkSample
	min, max float64
	labels   int
}

type sparkSample struct {
	value float64
	label string
}

func (s *sparkSeq) add(v float64, label string) {
	if len(s.samples) == 0 {
		s.min, s.max = v, v
	} else if v < s.min {
		s.min = v
	} else if v > s.max {
		s.max = v
	}
	s.samples = append(s.samples, sparkSample{v, label})
	if label != "" {
		s.labels++
	}
}

func (s *sparkSeq) render(b *strings.Builder, columns, rows int) {
	for j := 0; j < len(s.samples); j += columns {
		n := min(len(s.samples)-j, columns)
		if j != 0 {
			b.WriteByte('\n')
		}
		s.renderRange(b, rows, j, n)
	}
}

func (s *sparkSeq) renderRange(b *strings.Builder, rows, offset, n int) {
	const fill = "_o#"
	const charsetLen = 3
	relmax := s.max - s.min
	if relmax == 0 {
		relmax = 1
	}
	steps := charsetLen * rows
	chars := make([]byte, n)
	for row := 0; ; row++ {
		loop := false
		for j := range chars {
			chars[j] = ' '
		}
		for j := 0; j < n; j++ {
			sm := s.samples[j+offset]
			relval := sm.value - s.min
			step := int(float64(int(relval*float64(steps))) / relmax)
			step = min(max(step, 0), steps-1)
			if row < rows {
				idx := step - (rows-row-1)*charsetLen
				loop = true
				if idx >= 0 && idx < charsetLen {
					chars[j] = fill[idx]
				} else if idx >= charsetLen {
					chars[j] = '|'
				}
			} else {
				if s.labels > 0 && row-rows < 1 {
					loop = true
					break
				}
				if lc := row - rows - 1; len(sm.label) > lc {
					loop = true
					chars[j] = sm.label[lc]
				}
			}
		}
		if !loop {
			return
		}
		b.Write(chars)
		b.WriteByte('\n')
	}
}

// latencyReport is Redis's createLatencyReport (LATENCY DOCTOR).
func (e *Engine) latencyReport() string {
	l := &e.latency
	l.mu.Lock()
	defer l.mu.Unlock()
	th := e.Config.Int("latency-monitor-threshold")
	var b strings.Builder
	if len(l.order) == 0 && th == 0 {
		return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	}
	var adv struct {
		slowlogEnabled, slowlogTuning, slowlogInspect, diskContention, scheduler, dataWriteback,
		noAppendfsync, localDisk, ssd, writeLoadInfo, hz, largeObjects, massEviction, relaxFsync bool
	}
	advices := 0
	for i, ev := range l.order {
		ts := l.events[ev]
		if i == 0 {
			b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
		}
		var n, sum, lo, hi, oldest int64
		for _, s := range ts.samples {
			if s.time == 0 {
				continue
			}
			n++
			if n == 1 {
				lo, hi = s.latency, s.latency
			} else {
				lo, hi = min(lo, s.latency), max(hi, s.latency)
			}
			sum += s.latency
			if oldest == 0 || s.time < oldest {
				oldest = s.time
			}
		}
		var avg, mad, period int64
		if n > 0 {
			avg = sum / n
			period = time.Now().Unix() - oldest
			if period == 0 {
				period = 1
			}
			var dev int64
			for _, s := range ts.samples {
				if s.time != 0 {
					dev += abs64(avg - s.latency)
				}
			}
			mad = dev / n
		}
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.",
			i+1, ev, n, avg, mad, float64(period)/float64(n), ts.max)
		switch strings.ToLower(ev) {
		case "command":
			slower := e.Config.Int("slowlog-log-slower-than")
			if slower < 0 {
				adv.slowlogEnabled = true
				advices++
			} else if slower/1000 > th {
				adv.slowlogTuning = true
				advices++
			}
			adv.slowlogInspect, adv.largeObjects = true, true
			advices += 2
		case "fast-command":
			adv.scheduler = true
			advices++
		case "aof-write-pending-fsync":
			adv.localDisk, adv.diskContention, adv.ssd, adv.dataWriteback = true, true, true, true
			advices += 4
		case "aof-write-active-child":
			adv.noAppendfsync, adv.dataWriteback, adv.ssd = true, true, true
			advices += 3
		case "aof-write-alone":
			adv.localDisk, adv.dataWriteback, adv.ssd = true, true, true
			advices += 3
		case "aof-fsync-always":
			adv.relaxFsync = true
			advices++
		case "aof-fstat", "rdb-unlink-temp-file":
			adv.diskContention, adv.localDisk = true, true
			advices += 2
		case "aof-rewrite-diff-write", "aof-rename":
			adv.writeLoadInfo, adv.dataWriteback, adv.ssd, adv.localDisk = true, true, true, true
			advices += 4
		case "expire-cycle":
			adv.hz, adv.largeObjects = true, true
			advices += 2
		case "eviction-del":
			adv.largeObjects = true
			advices++
		case "eviction-cycle":
			adv.massEviction = true
			advices++
		}
		b.WriteByte('\n')
	}
	// Redis also advises against transparent huge pages when its process
	// has some; Go's runtime manages huge pages itself, so that advice
	// is not given.
	switch {
	case len(l.order) == 0 && advices == 0:
		b.WriteString("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n")
	case len(l.order) > 0 && advices == 0:
		b.WriteString("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n")
	default:
		b.WriteString("\nI have a few advices for you:\n\n")
		if adv.slowlogEnabled {
			fmt.Fprintf(&b, "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %d'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n", th*1000)
		}
		if adv.slowlogTuning {
			fmt.Fprintf(&b, "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than %d'.\n", th*1000)
		}
		if adv.slowlogInspect {
			b.WriteString("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n")
		}
		if adv.scheduler {
			b.WriteString("- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n" +
				"  1) Lower the system load.\n" +
				"  2) Use a computer / VM just for Redis if you are running other software in the same system.\n" +
				"  3) Check if you have a \"noisy neighbour\" problem.\n" +
				"  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n" +
				"  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n")
		}
		if adv.localDisk {
			b.WriteString("- It is strongly advised to use local disks for persistence, especially if you are using AOF. Remote disks provided by platform-as-a-service providers are known to be slow.\n")
		}
		if adv.ssd {
			b.WriteString("- SSD disks are able to reduce fsync latency, and total time needed for snapshotting and AOF log rewriting (resulting in smaller memory usage). With extremely high write load SSD disks can be a good option. However Redis should perform reasonably with high load using normal disks. Use this advice as a last resort.\n")
		}
		if adv.dataWriteback {
			b.WriteString("- Mounting ext3/4 filesystems with data=writeback can provide a performance boost compared to data=ordered, however this mode of operation provides less guarantees, and sometimes it can happen that after a hard crash the AOF file will have a half-written command at the end and will require to be repaired before Redis restarts.\n")
		}
		if adv.diskContention {
			b.WriteString("- Try to lower the disk contention. This is often caused by other disk intensive processes running in the same computer (including other Redis instances).\n")
		}
		if adv.noAppendfsync {
			b.WriteString("- Assuming from the point of view of data safety this is viable in your environment, you could try to enable the 'no-appendfsync-on-rewrite' option, so that fsync will not be performed while there is a child rewriting the AOF file or producing an RDB file (the moment where there is high disk contention).\n")
		}
		if adv.relaxFsync && e.Config.Get("appendfsync") == "always" {
			b.WriteString("- Your fsync policy is set to 'always'. It is very hard to get good performances with such a setup, if possible try to relax the fsync policy to 'onesec'.\n")
		}
		if adv.writeLoadInfo {
			b.WriteString("- Latency during the AOF atomic rename operation or when the final difference is flushed to the AOF file at the end of the rewrite, sometimes is caused by very high write load, causing the AOF buffer to get very large. If possible try to send less commands to accomplish the same work, or use Lua scripts to group multiple operations into a single EVALSHA call.\n")
		}
		if adv.hz && e.Config.Int("hz") < 100 {
			b.WriteString("- In order to make the Redis keys expiring process more incremental, try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n")
		}
		if adv.largeObjects {
			b.WriteString("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n")
		}
		if adv.massEviction {
			b.WriteString("- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster large keys migrations (RESTORE command), may create sudden memory pressure forcing the server to block trying to evict keys. \n")
		}
	}
	return b.String()
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
