package engine_test

import (
	"testing"

	"github.com/ordo-db/ordo/internal/redistest"
)

func TestConnectionCommands(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("PING")
	d.Do("PING", "hello")
	d.Do("PING", "a", "b")
	d.Do("ECHO", "x y")
	d.Do("ECHO")
	d.Do("NOSUCHCMD", "a", "b")
	d.Do("nosuchcmd")
	d.Do("SELECT", "16")
	d.Do("SELECT", "x")
	d.Do("SELECT", "-1")
	d.Do("SELECT", "1")
	d.Do("SELECT", "0")
	d.Do("AUTH", "pw")
	d.Do("AUTH", "a", "b", "c")
	d.Do("HELLO", "4")
	d.Do("HELLO", "x")
	d.Do("HELLO", "2", "FOO")
}

func TestMultiQueueingErrors(t *testing.T) {
	d := redistest.NewDiff(t)
	d.Do("EXEC")
	d.Do("DISCARD")
	d.Do("MULTI")
	d.Do("MULTI")
	d.Do("PING")
	d.Do("NOSUCH")
	d.Do("EXEC")
	d.Do("MULTI")
	d.Do("PING")
	d.Do("ECHO", "x")
	d.Do("EXEC")
	d.Do("MULTI")
	d.Do("WATCH", "x")
	d.Do("DISCARD")
}
