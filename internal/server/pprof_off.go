//go:build !ordo_pprof

package server

import (
	"fmt"
	"os"
)

// startPprof only says how to get profiling: net/http/pprof (with
// net/http, its TLS and HTTP/2 code) is linked only into binaries built
// with -tags ordo_pprof, since it made every ordo-server about 2 MB
// bigger and 1 MB larger in RSS for a feature used while profiling.
func startPprof(addr string) {
	fmt.Fprintf(os.Stderr, "ORDO_PPROF=%s ignored: this ordo-server was built without profiling; "+
		"build it with `go build -tags ordo_pprof ./cmd/ordo-server` to serve net/http/pprof\n", addr)
}
