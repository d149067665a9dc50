#!/bin/bash
# cpu-per-op-client.sh BINARY REQUESTS PIPELINE COMMAND...
#
# bench/cpu-per-op.sh, also reporting redis-benchmark's own CPU per request
# (user + system, from /usr/bin/time) and the server's context switches per
# request (all its threads, /proc/PID/task/*/status). The load generator
# shares the machine's cores, so the CPU it spends per request is
# throughput too: a server that wakes it once per reply costs it more than
# one whose replies leave together. Also loads the SORT BY row's list and
# weights (sortl, sortw_*). Linux only. Compare builds by alternating them
# and taking each one's range or minimum, as for cpu-per-op.sh.
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
seq 3000 | sed 's/^/PFADD hll e/' | redis-cli -p $port >/dev/null
for i in $(seq 0 99); do e=$(( (i * 37) % 100 )); echo "RPUSH sortl $e"; echo "SET sortw_$e $(( (i * 53) % 100 ))"; done | redis-cli -p $port >/dev/null
redis-benchmark -p $port -c 50 -n "$n" -r 1000000 -P "$p" -q "$@" >/dev/null 2>&1
cs() { cat /proc/$pid/task/*/status | awk '/ctxt_switches/{s+=$2} END{print s}'; }
t0=$(awk '{print $14 + $15}' /proc/$pid/stat); c0=$(cs)
/usr/bin/time -f "%U %S" -o $dir/ctime redis-benchmark -p $port -c 50 -n "$n" -r 1000000 -P "$p" -q "$@" > $dir/out 2>&1
t1=$(awk '{print $14 + $15}' /proc/$pid/stat); c1=$(cs)
rps=$(tr '\r' '\n' < $dir/out | grep -o '[0-9.]* requests per second' | tail -1)
cl=$(awk -v n=$n '{printf "%.3f", ($1+$2)*1e6/n}' $dir/ctime)
sv=$(echo "scale=3; ($t1 - $t0) * 1000000 / $(getconf CLK_TCK) / $n" | bc)
echo "$(basename "$bin") $* : server $sv us, client $cl us, server ctxsw/req $(echo "scale=3; ($c1-$c0)/$n" | bc) ($rps)"
