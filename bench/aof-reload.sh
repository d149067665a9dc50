#!/usr/bin/env bash
# Reload time and memory for N keys: ordo-server vs redis-server, each
# reloading its own append-only data after a clean shutdown (snapshot)
# and after kill -9 (log replay).
#
#   N=1000000 bench/aof-reload.sh
#
# Not part of the test suite. Needs redis-server and redis-cli in PATH.
set -euo pipefail
N=${N:-1000000}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM
go build -o "$work/ordo-server" ./cmd/ordo-server

# N SET commands in RESP: SET key:<i> value:<i>
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) { k = "key:" i; v = "value:" i;
  printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, length(v), v } }' > "$work/load.resp"

freeport() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

# start BIN DIR PORT ARGS...: starts a server, sets pid
start() {
  local bin=$1 dir=$2 port=$3; shift 3
  "$bin" --port "$port" --bind 127.0.0.1 --dir "$dir" "$@" >> "$dir.log" 2>&1 &
  pid=$!
}

# ready PORT T0: waits until DBSIZE = N, sets secs to the elapsed seconds
ready() {
  local port=$1 t0=$2 n
  while true; do
    n=$(redis-cli -p "$port" DBSIZE 2>/dev/null || true)
    if [ "$n" = "$N" ]; then break; fi
    if ! kill -0 "$pid" 2>/dev/null; then echo "server died:"; cat "$dir.log"; exit 1; fi
    sleep 0.01
  done
  secs=$(( ($(date +%s%N) - t0) / 1000000 ))
  secs="$((secs / 1000)).$(printf %03d $((secs % 1000)))"
}

rss() { awk '/VmRSS/ { printf "%.0f MB", $2 / 1024 }' "/proc/$1/status"; }

run() {
  local name=$1 bin=$2 mode=$3; shift 3
  local dir="$work/$name-$mode" port
  mkdir -p "$dir"
  port=$(freeport)
  start "$bin" "$dir" "$port" "$@"
  until redis-cli -p "$port" PING >/dev/null 2>&1; do sleep 0.05; done
  redis-cli -p "$port" --pipe < "$work/load.resp" > /dev/null
  local live; live=$(rss "$pid")
  if [ "$mode" = snapshot ]; then
    redis-cli -p "$port" SHUTDOWN > /dev/null 2>&1 || true
  else
    sleep 1.5 # everysec: let the last second reach the file
    kill -9 "$pid"
  fi
  wait "$pid" 2>/dev/null || true
  local size; size=$(du -sh "$dir" | cut -f1)
  port=$(freeport)
  t0=$(date +%s%N)
  start "$bin" "$dir" "$port" "$@"
  ready "$port" "$t0"
  printf "%-6s %-9s keys=%d reload=%ss rss_after_reload=%s rss_live=%s files=%s\n" \
    "$name" "$mode" "$N" "$secs" "$(rss "$pid")" "$live" "$size"
  kill -9 "$pid"; wait "$pid" 2>/dev/null || true
}

for mode in snapshot log; do
  run ordo "$work/ordo-server" "$mode" --appendonly yes --appendfsync everysec
  run redis "$(command -v redis-server)" "$mode" --appendonly yes --appendfsync everysec --save ""
done
