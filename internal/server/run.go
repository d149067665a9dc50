package server

import (
	"fmt"
	"net/http"
	_ "net/http/pprof" // served only when ORDO_PPROF is set
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

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
		// Profiling on demand: ORDO_PPROF=127.0.0.1:6060 serves net/http/pprof.
		go func() {
			if err := http.ListenAndServe(addr, nil); err != nil {
				fmt.Fprintln(os.Stderr, "pprof:", err)
			}
		}()
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
	snapshot := atomic.Bool{}
	snapshot.Store(true)
	defer func() {
		if err := p.Close(snapshot.Load()); err != nil {
			s.Logf("Error closing the append only file: %v", err)
		}
	}()
	if err := s.Listen(); err != nil {
		return err
	}
	e.Shutdown = func(c *engine.Ctx, save bool) error {
		snapshot.Store(save)
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
