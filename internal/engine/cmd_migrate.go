package engine

// MIGRATE: DUMP keys here, RESTORE them on another server, delete them
// here (unless COPY), as Redis 7.0's migrateCommand. Like Redis, the
// command blocks the server while it talks to the target (bounded by its
// timeout). Unlike Redis, Ordo keeps no cache of target connections:
// each MIGRATE connects, and always sends SELECT.

import (
	"bufio"
	"errors"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/ordo-db/ordo/internal/rdb"
	"github.com/ordo-db/ordo/internal/resp"
)

// MIGRATE error replies, as Redis 7.0 words them.
const (
	ErrMigrateKeysEmpty = "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"
	ErrMigrateConnect   = "IOERR error or timeout connecting to the client"
	ErrMigrateWrite     = "IOERR error or timeout writing to target instance"
	ErrMigrateRead      = "IOERR error or timeout reading to target instance"
)

func registerMigrate(t *Table) {
	t.register("migrate", migrateCommand)
}

func migrateCommand(c *Ctx) {
	copyKeys, replace := false, false
	var username, password string
	auth, auth2 := false, false
	firstKey, numKeys := 3, 1
	for j := 6; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		switch {
		case c.ArgIs(j, "copy"):
			copyKeys = true
		case c.ArgIs(j, "replace"):
			replace = true
		case c.ArgIs(j, "auth"):
			if more < 1 {
				c.W.Error(ErrSyntax)
				return
			}
			j++
			password, auth = string(c.Args[j]), true
		case c.ArgIs(j, "auth2"):
			if more < 2 {
				c.W.Error(ErrSyntax)
				return
			}
			username, password, auth, auth2 = string(c.Args[j+1]), string(c.Args[j+2]), true, true
			j += 2
		case c.ArgIs(j, "keys"):
			if len(c.Args[3]) != 0 {
				c.W.Error(ErrMigrateKeysEmpty)
				return
			}
			firstKey, numKeys = j+1, len(c.Args)-j-1
			j = len(c.Args)
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	timeout, ok := c.IntArg(5)
	if !ok {
		return
	}
	dbid, ok := c.IntArg(4)
	if !ok {
		return
	}
	if timeout <= 0 {
		timeout = 1000
	}
	var keys [][]byte
	for j := firstKey; j < firstKey+numKeys; j++ {
		if c.Exists(c.Args[j]) {
			keys = append(keys, c.Args[j])
		}
	}
	if len(keys) == 0 {
		c.W.Simple("NOKEY")
		return
	}

	// The commands for the target: [AUTH], SELECT, one RESTORE per key
	// still alive, with its remaining time to live.
	var req []byte
	if auth {
		if auth2 {
			req = resp.AppendCommand(req, "AUTH", username, password)
		} else {
			req = resp.AppendCommand(req, "AUTH", password)
		}
	}
	req = resp.AppendCommand(req, "SELECT", strconv.FormatInt(dbid, 10))
	var moved [][]byte
	for _, k := range keys {
		ttl := int64(0)
		if at := c.TTL(k); at != -1 {
			ttl = at - c.Now
			if ttl < 0 {
				continue
			}
			ttl = max(ttl, 1)
		}
		v, _ := c.Lookup(k)
		rv, ok := toRDB(v)
		if !ok {
			c.W.Error(ErrDumpUnsupported)
			return
		}
		args := []string{"RESTORE", string(k), strconv.FormatInt(ttl, 10), string(rdb.Dump(rv, c.E.Config.Bool("rdbcompression")))}
		if replace {
			args = append(args, "REPLACE")
		}
		req = resp.AppendCommand(req, args...)
		moved = append(moved, k)
	}

	addr := net.JoinHostPort(string(c.Args[1]), string(c.Args[2]))
	wait := time.Duration(timeout) * time.Millisecond
	npre := 1 + btoi(auth)
	replies, err := migrateExchange(addr, wait, req, npre, npre+len(moved))
	if err != nil && errors.Is(err, errMigrateRetry) {
		// As Redis: a socket error before the first RESTORE reply that is
		// not a timeout is retried once on a new connection.
		replies, err = migrateExchange(addr, wait, req, npre, npre+len(moved))
	}
	if err != nil && len(replies) == 0 {
		var me *migrateError
		if errors.As(err, &me) {
			c.W.Error(me.reply)
		} else {
			c.W.Error(ErrMigrateRead)
		}
		return
	}
	// replies: [AUTH], SELECT, then RESTOREs (possibly fewer on a read
	// error part way).
	pre, restores := replies[:npre], replies[npre:]
	targetErr := ""
	for _, r := range pre {
		if targetErr == "" && len(r) > 0 && r[0] == '-' {
			targetErr = r[1:]
		}
	}
	var deleted [][]byte
	for i, r := range restores {
		if len(r) > 0 && r[0] == '-' || targetErr != "" {
			if targetErr == "" {
				targetErr = r[1:]
			}
			continue
		}
		if !copyKeys {
			c.Delete(moved[i])
			c.Dirty(1)
			deleted = append(deleted, moved[i])
		}
	}
	if len(deleted) > 0 {
		c.Propagate(append([][]byte{[]byte("DEL")}, deleted...)...)
	}
	switch {
	case targetErr != "":
		c.W.Error("ERR Target instance replied with error: " + targetErr)
	case err != nil:
		c.W.Error(ErrMigrateRead)
	default:
		c.W.OK()
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

type migrateError struct{ reply string }

func (e *migrateError) Error() string { return e.reply }

// errMigrateRetry wraps socket errors worth one retry: no reply was read
// and the error was not a timeout.
var errMigrateRetry = errors.New("migrate: retry")

// migrateExchange connects to addr, writes req and reads n one-line
// replies (each with its leading '+', '-' or ':'). A read error in the
// first pre replies (AUTH, SELECT) or the first RESTORE reply returns no
// replies; a later one returns the replies read so far with the error.
func migrateExchange(addr string, wait time.Duration, req []byte, pre, n int) ([]string, error) {
	conn, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			// Redis's non-blocking connect "succeeds" and the write
			// fails (and is retried once, as here).
			return nil, errors.Join(&migrateError{ErrMigrateWrite}, errMigrateRetry)
		}
		return nil, &migrateError{ErrMigrateConnect}
	}
	defer conn.Close()
	retry := func(err error) error {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return err
		}
		return errors.Join(err, errMigrateRetry)
	}
	conn.SetWriteDeadline(time.Now().Add(wait))
	if _, err := conn.Write(req); err != nil {
		return nil, errors.Join(&migrateError{ErrMigrateWrite}, retry(err))
	}
	br := bufio.NewReader(conn)
	var out []string
	for i := 0; i < n; i++ {
		conn.SetReadDeadline(time.Now().Add(wait))
		line, err := br.ReadString('\n')
		if err != nil {
			if i <= pre {
				return nil, errors.Join(&migrateError{ErrMigrateRead}, retry(err))
			}
			return out, err
		}
		if len(line) >= 2 && line[len(line)-2] == '\r' {
			line = line[:len(line)-2]
		}
		out = append(out, line)
	}
	return out, nil
}
