package bench

// ---- stream: a consumer group reading and acknowledging ----
//
// redis-benchmark sends one fixed command, but a consumer's XACK names the
// IDs its XREADGROUP just returned, so these rows have their own driver:
// -c clients, each a consumer of one group, repeatedly read COUNT entries
// with XREADGROUP ... > and acknowledge them with one XACK. At -P 16 a
// client writes 16 XREADGROUPs at once, each preceded by the XACK of the
// read in the same place of its previous batch, and then reads all the
// replies: 16 round trips of the job-queue loop per network round trip.

import (
	"bufio"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ordo-db/ordo/internal/resp"
)

const (
	streamKey   = "bench:q"
	streamCount = 10 // entries per XREADGROUP
)

func streamRows(o Options, sel *regexp.Regexp, tmp string) []Result {
	var out []Result
	for _, pipe := range []int{1, 16} {
		name := fmt.Sprintf("XREADGROUP COUNT %d + XACK -P %d", streamCount, pipe)
		if !sel.MatchString("stream " + name) {
			continue
		}
		// o.N commands in all, as a redis-benchmark row: o.N/2 pairs.
		pairs := max(o.N/2, o.Clients)
		pairs -= pairs % o.Clients
		rv, ov, errs := freshRuns(o, tmp, nil, func(s *server) (float64, error) {
			return readAckRun(s, o.Clients, pipe, pairs)
		})
		res := Result{Group: "stream", Name: name, Unit: "pairs/s", HigherBetter: true, Redis: median(rv), Ordo: median(ov),
			Extra: fmt.Sprintf("%d clients, each a consumer of one group; %d entries read and acked per pair; %d pairs", o.Clients, streamCount, pairs)}
		if len(errs) > 0 {
			res.Err = strings.Join(dedupe(errs), "; ")
		}
		o.Log("%-36s redis %10.0f  ordo %10.0f  ratio %.2f %s", name, res.Redis, res.Ordo, res.Ratio(), res.Err)
		out = append(out, res)
	}
	return out
}

// readAckRun fills the stream with the entries the run consumes, creates
// the group, then runs the clients and returns the pairs per second.
func readAckRun(s *server, clients, pipe, pairs int) (float64, error) {
	if v, err := s.do("XGROUP", "CREATE", streamKey, "g", "$", "MKSTREAM"); err != nil || v.Kind == resp.KindError {
		return 0, fmt.Errorf("XGROUP CREATE: %v %s", err, v.Str)
	}
	bad, err := load(s, pairs*streamCount, func(i int, dst []byte) []byte {
		return resp.AppendCommand(dst, "XADD", streamKey, "*", "job", strconv.Itoa(i), "queue", "default")
	})
	if err == nil && bad > 0 {
		err = fmt.Errorf("%d error replies to XADD", bad)
	}
	if err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	errc := make(chan error, clients)
	startc := make(chan struct{})
	for c := 0; c < clients; c++ {
		conn, err := net.Dial("tcp", s.addr)
		if err != nil {
			return 0, err
		}
		defer conn.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-startc
			if err := readAckClient(conn, "c"+strconv.Itoa(c), pipe, pairs/clients); err != nil {
				errc <- err
			}
		}()
	}
	t0 := time.Now()
	close(startc)
	wg.Wait()
	took := time.Since(t0)
	select {
	case err := <-errc:
		return 0, err
	default:
	}
	// Every entry was delivered once and acknowledged: nothing pending.
	v, err := s.do("XPENDING", streamKey, "g")
	if err != nil {
		return 0, err
	}
	if len(v.Elems) == 0 || v.Elems[0].Int != 0 {
		return 0, fmt.Errorf("entries left pending after the run: %v", v)
	}
	return float64(pairs) / took.Seconds(), nil
}

// readAckClient runs n XREADGROUP + XACK pairs as consumer name, pipe at
// a time.
func readAckClient(conn net.Conn, name string, pipe, n int) error {
	conn.SetDeadline(time.Now().Add(5 * time.Minute))
	br := bufio.NewReaderSize(conn, 64<<10)
	read := resp.AppendCommand(nil, "XREADGROUP", "GROUP", "g", name, "COUNT", strconv.Itoa(streamCount), "STREAMS", streamKey, ">")
	acks := make([][]string, pipe) // the IDs each slot read last, to acknowledge
	var buf []byte
	for done := 0; done < n || hasAcks(acks); {
		buf = buf[:0]
		nreads := 0
		for j := 0; j < pipe; j++ {
			if len(acks[j]) > 0 {
				buf = resp.AppendCommand(buf, append([]string{"XACK", streamKey, "g"}, acks[j]...)...)
			}
			if done+nreads < n {
				buf = append(buf, read...)
				nreads++
			}
		}
		if _, err := conn.Write(buf); err != nil {
			return err
		}
		for j := 0; j < pipe; j++ {
			if len(acks[j]) > 0 {
				v, err := resp.ReadReply(br)
				if err != nil {
					return err
				}
				if v.Kind != resp.KindInt || v.Int != int64(len(acks[j])) {
					return fmt.Errorf("XACK of %d IDs answered %v", len(acks[j]), v)
				}
				acks[j] = acks[j][:0]
			}
			if j < nreads {
				v, err := resp.ReadReply(br)
				if err != nil {
					return err
				}
				ids, err := readGroupIDs(v)
				if err != nil {
					return err
				}
				if len(ids) == 0 {
					return fmt.Errorf("XREADGROUP found the stream empty")
				}
				acks[j] = ids
			}
		}
		done += nreads
	}
	return nil
}

func hasAcks(acks [][]string) bool {
	for _, a := range acks {
		if len(a) > 0 {
			return true
		}
	}
	return false
}

// readGroupIDs returns the entry IDs of an XREADGROUP reply (RESP2: an
// array of [key, entries]; a null when nothing was read).
func readGroupIDs(v resp.Value) ([]string, error) {
	if v.Kind == resp.KindError {
		return nil, fmt.Errorf("XREADGROUP: %s", v.Str)
	}
	if v.Kind != resp.KindArray || len(v.Elems) == 0 {
		return nil, nil
	}
	st := v.Elems[0]
	if len(st.Elems) != 2 {
		return nil, fmt.Errorf("XREADGROUP: unexpected reply %v", v)
	}
	var ids []string
	for _, e := range st.Elems[1].Elems {
		if len(e.Elems) == 0 {
			return nil, fmt.Errorf("XREADGROUP: unexpected entry %v", e)
		}
		ids = append(ids, e.Elems[0].Str)
	}
	return ids, nil
}
