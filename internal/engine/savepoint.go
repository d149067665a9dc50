package engine

import (
	"strconv"
	"strings"
	"time"
)

// Save points (the save parameter, "seconds changes [seconds changes
// ...]"), as Redis's serverCron: ten times a second, when no background
// save runs, a BGSAVE starts once some point has at least `changes`
// changes (rdb_changes_since_last_save) and more than `seconds` seconds
// have passed since the last save (LASTSAVE); after a failed background
// save the next try waits 5 seconds (CONFIG_BGSAVE_RETRY_DELAY). save ""
// disables them. The BGSAVE is the command's: the persistence layer's
// snapshot and dir/dbfilename in Redis's format.

type savePoint struct{ secs, changes int64 }

// bgsaveRetryDelay is Redis's CONFIG_BGSAVE_RETRY_DELAY, in seconds.
const bgsaveRetryDelay = 5

// savePointLoop checks the save points until the engine closes.
func (e *Engine) savePointLoop() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	var src string
	var points []savePoint
	for {
		select {
		case <-e.closed:
			return
		case <-t.C:
		}
		if v := e.Config.Get("save"); v != src {
			src, points = v, parseSavePoints(v)
		}
		if len(points) == 0 {
			continue
		}
		e.Lock()
		e.checkSavePoints(points, time.Now().Unix())
		e.Unlock()
	}
}

func parseSavePoints(v string) []savePoint {
	f := strings.Fields(v)
	var out []savePoint
	for i := 0; i+1 < len(f); i += 2 {
		s, err1 := strconv.ParseInt(f[i], 10, 64)
		c, err2 := strconv.ParseInt(f[i+1], 10, 64)
		if err1 == nil && err2 == nil {
			out = append(out, savePoint{s, c})
		}
	}
	return out
}

// checkSavePoints starts a BGSAVE if a save point is reached (the lock
// held; now in unix seconds).
func (e *Engine) checkSavePoints(points []savePoint, now int64) {
	bg := &e.rdbBg
	if bg.running.Load() {
		return
	}
	last := e.StartTime.Unix()
	if p := e.Persistence; p != nil {
		last = p.LastSave()
	} else if t := bg.lastSave.Load(); t != 0 {
		last = t
	}
	for _, sp := range points {
		if e.dirty >= sp.changes && now-last > sp.secs &&
			(now-bg.lastTry.Load() > bgsaveRetryDelay || !bg.failed.Load()) {
			e.Logf("%d changes in %d seconds. Saving...", sp.changes, sp.secs)
			e.backgroundSave(false) // refused while another background job runs: the next check
			return
		}
	}
}
