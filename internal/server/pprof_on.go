//go:build ordo_pprof

package server

import (
	"fmt"
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof/ on http.DefaultServeMux
	"os"
)

// startPprof serves net/http/pprof on addr (ORDO_PPROF=127.0.0.1:6060),
// in a binary built with -tags ordo_pprof.
func startPprof(addr string) {
	go func() {
		if err := http.ListenAndServe(addr, nil); err != nil {
			fmt.Fprintln(os.Stderr, "pprof:", err)
		}
	}()
}
