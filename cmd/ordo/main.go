// Command ordo is Ordo's tool:
//
//	ordo bench [-rows REGEXP] [-merge] [-n 200000] [-repeat 3] [-elements 1000000] [-out bench]
//	ordo bench -render [-out bench]
//	ordo load [-h host] [-p port] [-a password] [FILE|-]
//	ordo gen --cmd TEMPLATE [--zadd 'key score member'] [FILE|-]
//
// bench measures ordo-server against redis-server side by side and writes
// bench/results.json, and from it bench/RESULTS.md and bench/ratios.svg.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ordo-db/ordo/bench"
	"github.com/ordo-db/ordo/internal/load"
)

const usageText = `usage: ordo <command> [flags]

commands:
  bench   measure ordo-server against redis-server side by side (bench/RESULTS.md)
  load    stream commands (RESP or text lines) to a server, as redis-cli --pipe
  gen     turn CSV or JSON-lines records into RESP commands for load

'ordo <command> --help' (or 'ordo help <command>') describes a command.`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole command; it returns the exit status. Usage asked for
// (--help, -h, help) goes to stdout with status 0; usage after a
// mistake goes to stderr with status 2.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usageText)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Fprintln(stdout, usageText)
		return 0
	case "help":
		if len(args) > 1 {
			return run([]string{args[1], "--help"}, stdin, stdout, stderr)
		}
		fmt.Fprintln(stdout, usageText)
		return 0
	case "bench":
		return benchMain(args[1:], stdout, stderr)
	case "load":
		return load.LoadMain(args[1:], stdin, stdout, stderr)
	case "gen":
		return load.GenMain(args[1:], stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "ordo: unknown command %q\n\n%s\n", args[0], usageText)
	return 2
}

// benchMain is `ordo bench [flags]`.
func benchMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var o bench.Options
	fs.StringVar(&o.Rows, "rows", "", "regular expression over \"group name\" selecting rows (e.g. 'throughput ZADD')")
	fs.IntVar(&o.N, "n", 200000, "requests per throughput run")
	fs.IntVar(&o.Clients, "c", 50, "parallel clients")
	fs.IntVar(&o.Keyspace, "r", 1000000, "random keyspace size")
	fs.IntVar(&o.Repeat, "repeat", 3, "measurements per row and server (median reported)")
	fs.IntVar(&o.Elements, "elements", 1000000, "elements for memory, load and restart rows")
	fs.StringVar(&o.Out, "out", "bench", "directory for results.json, RESULTS.md and ratios.svg")
	fs.BoolVar(&o.Merge, "merge", false, "merge the rows this run measures into the results.json in -out (each other row keeps its own run) instead of replacing it")
	render := fs.Bool("render", false, "run nothing: regenerate RESULTS.md and ratios.svg in -out from its results.json")
	importMD := fs.String("import", "", "run nothing: make -out's results.json (which must not exist) from this RESULTS.md, then render")
	fs.StringVar(&o.OrdoBin, "ordo-server", "", "ordo-server binary (default: build ./cmd/ordo-server)")
	fs.DurationVar(&o.Soak, "soak", 0, "length of each soak run (sustained mixed load with AOF rewrites); 0 skips the soak rows")
	fs.IntVar(&o.OrdoProcs, "ordo-procs", 0, "GOMAXPROCS of ordo-server (default: all cores but one, left to redis-benchmark)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: ordo bench [-rows REGEXP] [-merge] [-soak 150s] [-n 200000] [-repeat 3] [-elements 1000000] [-out bench]
       ordo bench -render [-out bench]

Measures ordo-server against redis-server side by side and writes
results.json, RESULTS.md and ratios.svg (see bench/README.md).`)
		fs.PrintDefaults()
	}
	// The flag package prints the usage itself on -h, -help and --help:
	// to stdout then, with status 0; after a mistake, to stderr.
	var msg bytes.Buffer
	fs.SetOutput(&msg)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		stdout.Write(msg.Bytes())
		return 0
	}
	if err == nil && fs.NArg() > 0 {
		fmt.Fprintf(&msg, "ordo bench: unexpected argument %q\n", fs.Arg(0))
		err = errors.New("unexpected argument")
	}
	if err != nil {
		stderr.Write(msg.Bytes())
		return 2
	}
	switch {
	case *render && *importMD != "":
		fmt.Fprintln(stderr, "ordo bench: -render and -import exclude each other")
		return 2
	case *render:
		if err := bench.Render(o.Out); err != nil {
			fmt.Fprintln(stderr, "ordo bench:", err)
			return 1
		}
		return 0
	case *importMD != "":
		if err := bench.Import(o.Out, *importMD); err != nil {
			fmt.Fprintln(stderr, "ordo bench:", err)
			return 1
		}
		return 0
	}
	if _, err := bench.Run(o); err != nil {
		fmt.Fprintln(stderr, "ordo bench:", err)
		return 1
	}
	return 0
}
