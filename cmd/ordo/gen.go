package main

import (
	"os"

	"github.com/ordo-db/ordo/internal/load"
)

// genMain is `ordo gen --cmd TEMPLATE [--zadd ...] [FILE|-]`.
func genMain(args []string) {
	os.Exit(load.GenMain(args, os.Stdin, os.Stdout, os.Stderr))
}
