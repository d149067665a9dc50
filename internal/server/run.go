package server

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ordo-db/ordo/internal/aof"
	"github.com/ordo-db/ordo/internal/config"
	"github.com/ordo-db/ordo/internal/engine"
)

// Usage is ordo-server --help's text.
const Usage = `Usage: ordo-server [/path/to/ordo.conf] [--option value ...]
       ordo-server -v or --version
       ordo-server -h or --help

Options are redis-server's, as flags or as directives in the config file
(flags override the file): --port 6379 --bind 127.0.0.1 --dir ./data
--requirepass pw --appendonly yes|no --appendfsync always|everysec|no
--maxmemory 1gb --databases 16 ...

--rdb-import FILE (Ordo's own, not a redis-server option) loads an RDB file
written by redis-server (a dump.rdb) into an empty dataset at startup and
snapshots it; SAVE writes dir/dbfilename in the same format.

Examples:
       ordo-server (run the server with the default settings)
       ordo-server /etc/ordo/6379.conf
       ordo-server --port 7777
       ordo-server /etc/ordo/6379.conf --loglevel verbose
`

// Main runs ordo-server with redis-server-style arguments until SIGTERM,
// SIGINT or SHUTDOWN.
func Main(args []string) error {
	// As redis-server, only the first argument can ask for the version
	// or the usage; unlike it (exit 1, on stderr), usage goes to stdout
	// with status 0.
	if len(args) > 0 {
		switch args[0] {
		case "-v", "--version":
			fmt.Printf("Ordo server v=%s (compatible with Redis %s)\n", Version, engine.RedisVersion)
			return nil
		case "-h", "-help", "--help":
			fmt.Print(Usage)
			return nil
		}
	}
	args, rdbImport, err := cutRDBImport(args)
	if err != nil {
		return err
	}
	cfg := engine.NewConfig()
	if err := config.Load(cfg, args); err != nil {
		return err
	}
	if err := cfg.Set("dir", cfg.Get("dir"), true); err != nil { // make absolute
		return err
	}
	if err := os.MkdirAll(cfg.Get("dir"), 0o755); err != nil {
		return fmt.Errorf("dir: %w", err)
	}
	if addr := os.Getenv("ORDO_PPROF"); addr != "" {
		startPprof(addr) // pprof_on.go / pprof_off.go (build tag ordo_pprof)
	}
	e := NewEngine(cfg)
	defer e.Close()
	if err := e.ACLStartupError(); err != nil { // user directives, aclfile
		return err
	}
	s := New(e)
	// Load the data before listening; a clean exit writes a snapshot
	// (SHUTDOWN NOSAVE only makes the log durable).
	p, err := aof.Open(e, s.Logf)
	if err != nil {
		return err
	}
	if rdbImport != "" {
		if err := ImportRDB(e, p, rdbImport, s.Logf); err != nil {
			p.Close(false)
			return err
		}
	} else if !cfg.Bool("appendonly") {
		if err := LoadDumpAtStart(e, s.Logf); err != nil {
			p.Close(false)
			return err
		}
	}
	snapshot, byCommand := atomic.Bool{}, atomic.Bool{}
	snapshot.Store(true)
	defer func() {
		// As Redis's prepareForShutdown: dump.rdb when save points are
		// set (SIGTERM, SHUTDOWN) or SHUTDOWN SAVE asks, not on NOSAVE.
		if snapshot.Load() && (byCommand.Load() || cfg.Get("save") != "") {
			if err := SaveDumpAtExit(e, s.Logf); err != nil {
				s.Logf("Error trying to save the DB, can't exit: %v", err)
			}
		}
		if err := p.Close(snapshot.Load()); err != nil {
			s.Logf("Error closing the append only file: %v", err)
		}
	}()
	if err := s.Listen(); err != nil {
		return err
	}
	e.Shutdown = func(c *engine.Ctx, save bool) error {
		snapshot.Store(save)
		byCommand.Store(true)
		go s.Close()
		return nil
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		select {
		case got := <-sig:
			s.Logf("Received %v, shutting down.", got)
			s.Close()
		case <-s.Done():
		}
	}()
	s.Logf("Ordo %s ready to accept connections on %v", Version, s.Addrs())
	s.Serve()
	<-s.Done()
	s.Logf("Ordo is now ready to exit, bye bye...")
	return nil
}

// Version is Ordo's own version.
const Version = "0.1.0"

// cutRDBImport removes --rdb-import FILE from the arguments.
func cutRDBImport(args []string) (rest []string, file string, err error) {
	for i := 0; i < len(args); i++ {
		if args[i] == "--rdb-import" {
			if i+1 >= len(args) {
				return nil, "", fmt.Errorf("--rdb-import needs a file name")
			}
			file = args[i+1]
			i++
			continue
		}
		rest = append(rest, args[i])
	}
	return rest, file, nil
}

// ImportRDB loads the RDB file at path into e, whose dataset must be
// empty, and makes it durable with a snapshot through p (if not nil).
// On any error the dataset is left empty.
func ImportRDB(e *engine.Engine, p engine.Persister, path string, logf func(string, ...any)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("rdb-import: %w", err)
	}
	defer f.Close()
	e.Lock()
	defer e.Unlock()
	for i, db := range e.DBs() {
		if db.Len() > 0 {
			return fmt.Errorf("rdb-import: database %d is not empty; an import needs an empty dataset", i)
		}
	}
	start := time.Now()
	st, err := e.LoadRDB(bufio.NewReaderSize(f, 1<<20))
	if err == nil && p != nil {
		err = p.Save()
	}
	if err != nil {
		for _, db := range e.DBs() {
			db.Flush()
		}
		return fmt.Errorf("rdb-import %s: %w", path, err)
	}
	logf("Imported %d keys from %s in %.3f seconds (%d skipped: expired or empty)", st.Keys, path, time.Since(start).Seconds(), st.Skipped)
	if st.Functions > 0 {
		logf("WARNING: %s holds %d function libraries; Ordo does not load functions", path, st.Functions)
	}
	return nil
}
