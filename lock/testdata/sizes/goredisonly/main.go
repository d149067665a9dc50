// Command goredisonly takes and releases a lock with go-redis alone
// (SET NX PX, then a compare-and-delete script): the baseline of the
// binary size test.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
)

var release = redis.NewScript(`if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end`)

func main() {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("ADDR")})
	defer rdb.Close()
	token := fmt.Sprint(time.Now().UnixNano())
	ok, err := rdb.SetNX(ctx, "lock:job", token, 10*time.Second).Result()
	if err != nil || !ok {
		fmt.Println(ok, err)
		return
	}
	fmt.Println(release.Run(ctx, rdb, []string{"lock:job"}, token).Err())
}
