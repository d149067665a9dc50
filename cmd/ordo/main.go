// Command ordo is Ordo's tool:
//
//	ordo bench [-rows REGEXP] [-n 200000] [-repeat 3] [-elements 1000000] [-out bench]
//	ordo load [-h host] [-p port] [-a password] [FILE|-]
//	ordo gen --cmd TEMPLATE [--zadd 'key score member'] [FILE|-]
//
// bench measures ordo-server against redis-server side by side and writes
// bench/RESULTS.md and bench/ratios.svg.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ordo-db/ordo/bench"
)

func usage() {
	fmt.Fprintln(os.Stderr, `usage: ordo <command> [flags]

commands:
  bench   measure ordo-server against redis-server side by side (bench/RESULTS.md)
  load    stream commands (RESP or text lines) to a server, as redis-cli --pipe
  gen     turn CSV or JSON-lines records into RESP commands for load`)
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "bench":
		fs := flag.NewFlagSet("bench", flag.ExitOnError)
		var o bench.Options
		fs.StringVar(&o.Rows, "rows", "", "regular expression over \"group name\" selecting rows (e.g. 'throughput ZADD')")
		fs.IntVar(&o.N, "n", 200000, "requests per throughput run")
		fs.IntVar(&o.Clients, "c", 50, "parallel clients")
		fs.IntVar(&o.Keyspace, "r", 1000000, "random keyspace size")
		fs.IntVar(&o.Repeat, "repeat", 3, "measurements per row and server (median reported)")
		fs.IntVar(&o.Elements, "elements", 1000000, "elements for memory, load and restart rows")
		fs.StringVar(&o.Out, "out", "bench", "directory for RESULTS.md and ratios.svg")
		fs.StringVar(&o.OrdoBin, "ordo-server", "", "ordo-server binary (default: build ./cmd/ordo-server)")
		fs.IntVar(&o.OrdoProcs, "ordo-procs", 0, "GOMAXPROCS of ordo-server (default: all cores but one, left to redis-benchmark)")
		fs.Parse(os.Args[2:])
		if _, err := bench.Run(o); err != nil {
			fmt.Fprintln(os.Stderr, "ordo bench:", err)
			os.Exit(1)
		}
	case "load":
		loadMain(os.Args[2:])
	case "gen":
		genMain(os.Args[2:])
	default:
		usage()
	}
}
