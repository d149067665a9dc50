// Command ordo-server is Ordo's network server: a drop-in for
// redis-server. It takes redis-server's options, as flags or in a
// redis.conf-style file:
//
//	ordo-server --port 6380 --bind 127.0.0.1 --dir ./data --requirepass s3cret
//	ordo-server ordo.conf --port 6381
//
// Memory: unless the GOGC environment variable is set, ordo-server runs
// Go's collector at GOGC=30 (gcPercent, gc.go): the heap grows to 1.3
// times its live size between collections instead of twice, which keeps
// RSS at or below redis-server's under sustained writes with AOF rewrites.
//
// Profiling: a binary built with `go build -tags ordo_pprof` serves
// net/http/pprof at the address in ORDO_PPROF (e.g. 127.0.0.1:6060); the
// default build leaves net/http out and only logs that ORDO_PPROF needs
// the tag.
package main

import (
	"fmt"
	"os"

	"github.com/ordo-db/ordo/internal/server"
)

func main() {
	go releaseWhenQuiet(setGCPercent())
	if err := server.Main(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ordo-server:", err)
		os.Exit(1)
	}
}
