// Command lockgoredis takes and releases a lock over go-redis through
// lock and backend/goredis: the binary size test compares it with
// goredisonly, the same work with go-redis alone.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ordo-db/ordo/backend/goredis"
	"github.com/ordo-db/ordo/lock"
)

func main() {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("ADDR")})
	defer rdb.Close()
	m := lock.New(goredis.New(rdb), "lock:job", lock.Options{TTL: 10 * time.Second})
	l, err := m.Lock(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Release(ctx))
}
