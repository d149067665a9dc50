package load

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// parseInterspersed parses flags that may come before or after the
// positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// helpRequested reports whether args ask for usage, reading them as
// parseInterspersed would: --help or -help as a flag, -h where no flag -h
// exists, or a bare -h as the last argument where -h is a flag that
// takes a value (ordo load's -h HOST, as in redis-cli: "-h 127.0.0.1"
// stays the host). It stops at an unknown flag and lets Parse report it.
func helpRequested(fs *flag.FlagSet, args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return false
		}
		if len(a) < 2 || a[0] != '-' {
			continue // a positional argument; flags may follow
		}
		name := strings.TrimPrefix(a[1:], "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if name == "help" || (name == "h" && f == nil) {
			return true
		}
		if f == nil {
			return false
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 == len(args) {
			return name == "h"
		}
		i++ // the flag's value
	}
	return false
}

// LoadMain is `ordo load [-h host] [-p port] [-a password] [FILE|-]`. It
// returns the exit status: 0 when every command succeeded, 1 otherwise.
// Progress is drawn on stderr when stderr is a terminal (or with
// -progress), so a cron job or CI log that captures stderr gets plain
// lines, never escape codes.
func LoadMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	host := fs.String("h", "127.0.0.1", "server hostname")
	port := fs.Int("p", 6379, "server port")
	pass := fs.String("a", "", "password (AUTH)")
	user := fs.String("user", "", "ACL user (with -a)")
	db := fs.Int("n", 0, "database number")
	timeout := fs.Int("pipe-timeout", 30, "seconds without a reply after the input ended before giving up (0: wait forever)")
	progress := fs.Bool("progress", false, "draw progress even when stderr is not a terminal")
	quiet := fs.Bool("q", false, "no progress")
	cluster := fs.Bool("cluster", false, "Redis Cluster: route each command to the master of its slot (-h/-p name any node)")
	fs.BoolVar(cluster, "c", false, "same as --cluster (as redis-cli -c)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: ordo load [-h host] [-p port] [-a password] [-n db] [--cluster] [FILE|-]

Streams commands (RESP, or text lines like "SET Key0 Value0") from FILE or
stdin to a RESP server without waiting for each reply, as redis-cli --pipe.
With --cluster (-c), each command goes to the master of its keys' slot in
a Redis Cluster (CLUSTER SLOTS, following MOVED and ASK), one pipelined
connection per node; a command whose keys span slots is an error, not sent.
-h is the host, as in redis-cli; a bare -h, or --help, prints this.`)
		fs.PrintDefaults()
	}
	if helpRequested(fs, args) {
		fs.SetOutput(stdout)
		fs.Usage()
		return 0
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) > 1 {
		fs.Usage()
		return 2
	}
	in := stdin
	if len(pos) == 1 && pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			fmt.Fprintln(stderr, "ordo load:", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	if pw := os.Getenv("REDISCLI_AUTH"); *pass == "" && pw != "" {
		*pass = pw
	}
	o := Options{
		Addr:        net.JoinHostPort(*host, strconv.Itoa(*port)),
		Password:    *pass,
		User:        *user,
		DB:          *db,
		PipeTimeout: time.Duration(*timeout) * time.Second,
		Stdout:      stdout,
		Stderr:      stderr,
		Cluster:     *cluster,
	}
	if f, ok := stderr.(*os.File); ok && IsTerminal(f) {
		o.Progress = true
	}
	if *progress {
		o.Progress = true
	}
	if *quiet {
		o.Progress = false
	}
	res, err := Run(context.Background(), in, o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if res.Errors > 0 {
		return 1
	}
	return 0
}

// templateList collects repeated template flags in command-line order.
type templateList struct {
	list   *[]*Template
	prefix string
}

func (l templateList) String() string { return "" }

func (l templateList) Set(s string) error {
	t, err := ParseTemplate(l.prefix + s)
	if err != nil {
		return err
	}
	*l.list = append(*l.list, t)
	return nil
}

// GenMain is `ordo gen --cmd TEMPLATE [--zadd ...] [FILE|-]`: it turns
// CSV or JSON-lines records into RESP on stdout, for `ordo load`.
func GenMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o GenOptions
	fs.Var(templateList{&o.Templates, ""}, "cmd", "command template, e.g. 'HSET user:{id} name {name} age {age}' (repeatable)")
	fs.Var(templateList{&o.Templates, "ZADD "}, "zadd", "index command: ZADD with this 'key score member' template (repeatable)")
	fs.Var(templateList{&o.Templates, "SADD "}, "sadd", "index command: SADD with this 'key member' template (repeatable)")
	fs.StringVar(&o.Format, "format", "", "input format: csv or jsonl (default: from the file name, else guessed from the first byte)")
	sep := fs.String("sep", ",", "CSV field separator (\\t for tab)")
	fs.BoolVar(&o.NoHeader, "no-header", false, "CSV has no header row (fields are {0}, {1}, ...)")
	fs.StringVar(&o.Missing, "missing", "error", "record without a field a template uses: error, skip, or empty")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: ordo gen --cmd TEMPLATE [--cmd ...] [--zadd 'key score member'] [FILE|-]

Turns CSV (first row: field names) or JSON-lines records into RESP
commands on stdout, one set of commands per record, for 'ordo load':

  ordo gen --cmd 'HSET user:{id} name {name} age {age}' --zadd 'users:by_age {age} {id}' users.csv | ordo load`)
		fs.PrintDefaults()
	}
	if helpRequested(fs, args) {
		fs.SetOutput(stdout)
		fs.Usage()
		return 0
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) > 1 || len(o.Templates) == 0 {
		fs.Usage()
		return 2
	}
	switch o.Missing {
	case "error", "skip", "empty":
	default:
		fmt.Fprintf(stderr, "ordo gen: -missing must be error, skip or empty\n")
		return 2
	}
	switch *sep {
	case "\\t", "tab":
		o.Comma = '\t'
	default:
		r := []rune(*sep)
		if len(r) != 1 {
			fmt.Fprintf(stderr, "ordo gen: -sep must be one character\n")
			return 2
		}
		o.Comma = r[0]
	}
	in := stdin
	if len(pos) == 1 && pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			fmt.Fprintln(stderr, "ordo gen:", err)
			return 1
		}
		defer f.Close()
		in = f
		if o.Format == "" {
			switch strings.ToLower(filepath.Ext(pos[0])) {
			case ".csv", ".tsv":
				o.Format = "csv"
				if strings.EqualFold(filepath.Ext(pos[0]), ".tsv") && *sep == "," {
					o.Comma = '\t'
				}
			case ".json", ".jsonl", ".ndjson":
				o.Format = "jsonl"
			}
		}
	}
	res, err := Generate(in, stdout, o)
	if err != nil {
		fmt.Fprintln(stderr, "ordo gen:", err)
		return 1
	}
	if res.Skipped > 0 {
		fmt.Fprintf(stderr, "ordo gen: %d records, %d commands, %d records skipped (missing fields)\n", res.Records, res.Commands, res.Skipped)
	}
	return 0
}
