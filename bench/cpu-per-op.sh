#!/bin/sh
# cpu-per-op.sh BINARY REQUESTS PIPELINE COMMAND...
#
# Server CPU per request: starts BINARY (an ordo-server or redis-server
# build) on a free-ish loopback port with GOMAXPROCS=1, runs redis-benchmark
# -c 50 -r 1000000 -P PIPELINE with COMMAND twice (the first run fills the
# keyspace), and prints the CPU time the server process spent on the second
# run divided by REQUESTS, from /proc/PID/stat (Linux only); also
# redis-benchmark's own CPU per request (user + system, with /usr/bin/time
# when it is installed) and the server's context switches per request (all
# its threads). The load generator shares the machine's cores, so the CPU
# it spends per request is throughput too: a server that wakes it once per
# reply costs it more than one whose replies leave together.
#
# On a machine shared with other jobs, throughput swings by 2x from run to
# run while the CPU a server spends per request moves far less: compare two
# builds by alternating them and taking each one's minimum, e.g.
#
#   for i in 1 2 3; do for b in /tmp/ordo-old /tmp/ordo-new; do
#     bench/cpu-per-op.sh $b 300000 16 incr counter:__rand_int__; done; done
#
# The word SHA in COMMAND is replaced by the SHA1 of the lock-release script
# loaded first (the bench's EVALSHA row); an HLL "hll" of 3,000 elements is
# made for PFCOUNT, and the SORT BY row's list and weights (sortl, sortw_*).
set -e
bin=$1 n=$2 p=$3
shift 3
port=$(( 20000 + $$ % 10000 ))
dir=$(mktemp -d)
GOMAXPROCS=1 "$bin" --port $port --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
i=0
until redis-cli -p $port ping >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -lt 100 ] || { echo "server did not start" >&2; exit 1; }
	sleep 0.1
done
sha=$(redis-cli -p $port script load "if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end")
seq 3000 | sed 's/^/PFADD hll e/' | redis-cli -p $port >/dev/null
for i in $(seq 0 99); do e=$(( (i * 37) % 100 )); echo "RPUSH sortl $e"; echo "SET sortw_$e $(( (i * 53) % 100 ))"; done | redis-cli -p $port >/dev/null
args=""
for a in "$@"; do [ "$a" = SHA ] && a=$sha; args="$args $a"; done
# shellcheck disable=SC2086 # the command's words are meant to split
redis-benchmark -p $port -c 50 -n "$n" -r 1000000 -P "$p" -q $args >/dev/null 2>&1
cs() { cat /proc/$pid/task/*/status | awk '/ctxt_switches/{s+=$2} END{print s}'; }
timer=""
[ -x /usr/bin/time ] && timer="/usr/bin/time -f %U_%S -o $dir/ctime"
t0=$(awk '{print $14 + $15}' /proc/$pid/stat); c0=$(cs)
# shellcheck disable=SC2086
$timer redis-benchmark -p $port -c 50 -n "$n" -r 1000000 -P "$p" -q $args >"$dir/out" 2>&1
t1=$(awk '{print $14 + $15}' /proc/$pid/stat); c1=$(cs)
rps=$(tr '\r' '\n' <"$dir/out" | grep -o '[0-9.]* requests per second' | tail -1)
hz=$(getconf CLK_TCK)
client="client n/a (no /usr/bin/time)"
[ -s "$dir/ctime" ] && client="client $(tr _ ' ' <"$dir/ctime" | awk -v n="$n" '{printf "%.3f", ($1+$2)*1e6/n}') us"
echo "$(basename "$bin") $* : $(echo "scale=3; ($t1 - $t0) * 1000000 / $hz / $n" | bc) us CPU per request, $client, server ctxsw/req $(echo "scale=3; ($c1 - $c0) / $n" | bc) ($rps)"
