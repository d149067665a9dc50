package bench

// ---- data: RESTORE of a big value ----
//
// RESTORE's argument is a binary DUMP payload, which redis-benchmark
// cannot pass (its command arguments are C strings), so this row has its
// own closed-loop clients: restoreClients connections, each sending
// RESTORE rz:<n> 0 <payload> REPLACE and waiting for the reply, until
// the row's count is done. Both servers restore the same payload, the
// DUMP redis-server gives of a sorted set of 10,000 members (RDB type
// ZSET_2, as Redis 7.0 writes a skiplist-encoded set).

import (
	"bufio"
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

const (
	restoreMembers = 10000
	restoreClients = 4
	restoreKeys    = 16 // distinct keys restored over (REPLACE)
)

func dataRows(o Options, sel *regexp.Regexp, tmp string) []Result {
	const name = "RESTORE 10k-member zset REPLACE"
	if !sel.MatchString("data " + name) {
		return nil
	}
	fail := func(err error) []Result {
		return []Result{{Group: "data", Name: name, Err: err.Error()}}
	}
	rs, ors, stop, err := startBoth(o, tmp)
	if err != nil {
		return fail(err)
	}
	defer stop()
	args := []string{"ZADD", "src"}
	for i := 0; i < restoreMembers; i++ {
		h := splitmix(uint64(i))
		args = append(args, strconv.FormatUint(h%1000000, 10), "member:"+strconv.Itoa(i))
	}
	if _, err := rs.do(args...); err != nil {
		return fail(err)
	}
	v, err := rs.do("DUMP", "src")
	if err != nil || v.Kind != resp.KindBulk {
		return fail(fmt.Errorf("DUMP on redis-server: %v %v", err, v))
	}
	payload := v.Str
	count := max(200, o.N/500) // 400 RESTOREs at the default -n
	var rr, orr, rp50, op50, rp99, op99 []float64
	var errs []string
	for i := 0; i < o.Repeat; i++ {
		for _, s := range []*server{rs, ors} {
			rps, p50, p99, err := restoreLoop(s, payload, count)
			if err != nil {
				errs = append(errs, s.name+": "+err.Error())
				continue
			}
			if s == rs {
				rr, rp50, rp99 = append(rr, rps), append(rp50, p50), append(rp99, p99)
			} else {
				orr, op50, op99 = append(orr, rps), append(op50, p50), append(op99, p99)
			}
		}
	}
	res := Result{Group: "data", Name: name, Unit: "req/s", HigherBetter: true,
		Redis: median(rr), Ordo: median(orr),
		Extra: fmt.Sprintf("%d clients, payload %d bytes; p50 %.3f/%.3f ms, p99 %.3f/%.3f ms",
			restoreClients, len(payload), median(rp50), median(op50), median(rp99), median(op99))}
	if len(errs) > 0 {
		res.Err = dedupe(errs)[0]
	}
	o.Log("%-28s redis %10.0f  ordo %10.0f  ratio %.2f %s", name, res.Redis, res.Ordo, res.Ratio(), res.Err)
	return []Result{res}
}

// restoreLoop sends count RESTOREs over restoreClients connections and
// returns the rate and the p50/p99 latencies (ms).
func restoreLoop(s *server, payload string, count int) (rps, p50, p99 float64, err error) {
	var mu sync.Mutex
	var lats []float64
	var firstErr error
	next := 0
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < restoreClients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.DialTimeout("tcp", s.addr, time.Second)
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
				return
			}
			defer conn.Close()
			br := bufio.NewReader(conn)
			var buf []byte
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= count || firstErr != nil {
					return
				}
				buf = resp.AppendCommand(buf[:0], "RESTORE", "rz:"+strconv.Itoa(i%restoreKeys), "0", payload, "REPLACE")
				t0 := time.Now()
				conn.SetDeadline(time.Now().Add(30 * time.Second))
				if _, err = conn.Write(buf); err == nil {
					var v resp.Value
					if v, err = resp.ReadReply(br); err == nil && v.Str != "OK" {
						err = fmt.Errorf("RESTORE: %s", v.Str)
					}
				}
				d := time.Since(t0)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				lats = append(lats, float64(d)/float64(time.Millisecond))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if firstErr != nil {
		return 0, 0, 0, firstErr
	}
	sort.Float64s(lats)
	return float64(count) / took.Seconds(), lats[len(lats)/2], lats[len(lats)*99/100], nil
}
