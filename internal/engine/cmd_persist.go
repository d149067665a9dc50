package engine

import "errors"

// SAVE, BGSAVE, BGREWRITEAOF and LASTSAVE. The work is done by the
// persistence layer (internal/aof), which installs itself as
// e.Persistence; INFO's persistence section and DEBUG RELOAD go through
// the same interface. Ordo's own snapshot is not an RDB file:
// it is an AOF rewrite, so BGSAVE and BGREWRITEAOF start the same
// background job (reported as a bgsave or as an AOF rewrite). SAVE and
// BGSAVE also write dir/dbfilename in Redis's RDB format (rdbfile.go,
// bgsave.go), which redis-server loads.

// Persister is what the persistence commands need. Every method is called
// with the engine lock held.
type Persister interface {
	// Save writes a snapshot synchronously (SAVE).
	Save() error
	// BackgroundSave starts a snapshot in the background (BGSAVE); it
	// returns the status reply or an error whose text is the error reply.
	BackgroundSave(schedule bool) (string, error)
	// BackgroundRewriteAOF starts a rewrite (BGREWRITEAOF), likewise.
	BackgroundRewriteAOF() (string, error)
	// LastSave is the unix time of the last successful snapshot.
	LastSave() int64
	// InfoPersistence is the body of INFO's persistence section
	// ("field:value" lines).
	InfoPersistence() string
	// Reload saves and reloads the dataset (DEBUG RELOAD).
	Reload() error
}

// Error replies of the persistence commands, as Redis 7.0 words them.
const (
	ErrBgsaveInProgress     = "ERR Background save already in progress"
	ErrAofRewriteInProgress = "ERR Background append only file rewriting already in progress"
	ErrBgsaveAofActive      = "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible."
	ErrSaveFailed           = "ERR"
)

func registerPersistence(t *Table) {
	t.register("save", func(c *Ctx) {
		p := persister(c.E)
		if p == nil {
			c.W.OK()
			return
		}
		if err := p.Save(); err != nil {
			c.W.Error(errorReply(err, ErrSaveFailed))
			return
		}
		// Also dir/dbfilename in Redis's format (rdbfile.go).
		if _, err := c.E.SaveRDBFile(); err != nil {
			c.W.Error(ErrSaveFailed)
			return
		}
		c.W.OK()
	})
	t.register("bgsave", func(c *Ctx) {
		schedule := false
		if len(c.Args) > 1 {
			if len(c.Args) > 2 || !c.ArgIs(1, "schedule") {
				c.W.Error(ErrSyntax)
				return
			}
			schedule = true
		}
		s, err := c.E.backgroundSave(schedule)
		if err != nil {
			c.W.Error(errorReply(err, ErrSaveFailed))
			return
		}
		c.W.Simple(s)
	})
	t.register("bgrewriteaof", func(c *Ctx) {
		p := persister(c.E)
		if p == nil {
			c.W.Simple("Background append only file rewriting started")
			return
		}
		s, err := p.BackgroundRewriteAOF()
		if err != nil {
			c.W.Error(errorReply(err, ErrSaveFailed))
			return
		}
		c.W.Simple(s)
	})
	t.register("lastsave", func(c *Ctx) {
		if p := persister(c.E); p != nil {
			c.W.Int(p.LastSave())
			return
		}
		if t := c.E.rdbBg.lastSave.Load(); t != 0 {
			c.W.Int(t)
			return
		}
		c.W.Int(c.E.StartTime.Unix())
	})
}

func persister(e *Engine) Persister { return e.Persistence }

// backgroundSave is BGSAVE [SCHEDULE], for the command and the save
// points (the lock held): the persistence layer's snapshot, and
// dir/dbfilename in Redis's format (bgsave.go).
func (e *Engine) backgroundSave(schedule bool) (string, error) {
	if e.rdbBg.running.Load() {
		return "", errRDBBusy
	}
	s := "Background saving started"
	if p := persister(e); p != nil {
		var err error
		if s, err = p.BackgroundSave(schedule); err != nil {
			return "", err
		}
	}
	if s == "Background saving started" {
		if err := e.startRDBBackground(); err != nil {
			return "", err
		}
	}
	return s, nil
}

// errorReply turns a persister error into an error reply: errors already
// worded as replies ("ERR ...") pass through, others become fallback.
func errorReply(err error, fallback string) string {
	var re interface{ ReplyError() bool }
	msg := err.Error()
	if errors.As(err, &re) || (len(msg) > 4 && msg[:4] == "ERR ") {
		return msg
	}
	return fallback
}
