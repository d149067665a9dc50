package main

import (
	"os"

	"github.com/ordo-db/ordo/internal/load"
)

// loadMain is `ordo load [-h host] [-p port] [-a password] [FILE|-]`.
func loadMain(args []string) {
	os.Exit(load.LoadMain(args, os.Stdin, os.Stdout, os.Stderr))
}
