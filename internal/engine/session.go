package engine

import "time"

// ResetSession readies an embedded client for reuse as a fresh session
// (the embedded DB's Do pools its sessions). It reports false, changing
// nothing, if the client holds state kept in the engine's own structures
// (MULTI, WATCH, a blocked or postponed command, subscriptions, client
// tracking, a replica link): such a client must be removed instead.
// Otherwise the client gets a new ID and every per-connection setting
// its initial value (database 0, RESP2, no name, the default user, CLIENT
// REPLY ON, ...), as from NewClient: nothing one command set is seen by
// the next. Call it only between commands, from the goroutine that runs
// them.
func (e *Engine) ResetSession(cl *Client) bool {
	if cl.multi || len(cl.watched) > 0 || cl.waiter != nil || cl.subs != nil ||
		cl.out != nil || cl.trk != nil || cl.replLink || cl.Kill != nil {
		return false
	}
	cl.ID = e.nextID.Add(1)
	cl.Created = time.Now()
	cl.Name, cl.LibName, cl.LibVer, cl.LastCmd = "", "", "", ""
	cl.DB, cl.Proto = 0, 2
	cl.user = nil
	cl.killed.Store(false)
	cl.closeNext, cl.noEvict, cl.noTouch = false, false, false
	cl.replyOff, cl.replySkip, cl.replySkipNext = false, false, false
	cl.multiErr, cl.multiQueue, cl.dirtyCAS = false, nil, false
	cl.curW = nil
	cl.woff = 0
	// lastCmd, a lookup cache, is kept: it is no session state.
	return true
}
