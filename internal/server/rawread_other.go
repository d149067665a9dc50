//go:build !unix

package server

// serveRaw is the unix read path (rawread_unix.go); elsewhere every
// connection is served the portable way.
func (c *session) serveRaw() bool { return false }

// sweepSkipped has nothing to sweep where serveRaw is not used.
func (s *Server) sweepSkipped(stop <-chan struct{}) {}
