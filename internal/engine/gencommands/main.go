// Command gencommands records redis-server's own command metadata (the
// replies of COMMAND and COMMAND DOCS, in RESP3) so that Ordo's command
// table takes arity, flags, key positions and documentation from the
// specification instead of restating them by hand.
//
//	redis-server --port 7777 --save '' &
//	go run ./internal/engine/gencommands 127.0.0.1:7777
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"

	"github.com/ordo-db/ordo/internal/resp"
)

func main() {
	addr := "127.0.0.1:6379"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	br := bufio.NewReaderSize(conn, 1<<20)
	call := func(args ...string) []byte {
		if _, err := conn.Write(resp.AppendCommand(nil, args...)); err != nil {
			panic(err)
		}
		raw, err := resp.ReadRawReply(br, nil)
		if err != nil {
			panic(err)
		}
		return raw
	}
	call("HELLO", "3")
	info := call("COMMAND")
	docs := call("COMMAND", "DOCS")
	if err := os.WriteFile("internal/engine/redis_command_info.resp", info, 0o644); err != nil {
		panic(err)
	}
	if err := os.WriteFile("internal/engine/redis_command_docs.resp", docs, 0o644); err != nil {
		panic(err)
	}
}
