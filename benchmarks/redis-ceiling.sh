#!/usr/bin/env bash
# The Redis server's own ceiling for Sluice's token-bucket decision: redis-benchmark (a C client,
# no JVM) sending the same EVALSHA limiter-redis sends (same script body, keys and arguments) at
# 1, 16 and 64 connections. Compare RedisRateLimiterBenchmark's sluice and ceiling methods with it.
#
# usage: benchmarks/redis-ceiling.sh [host] [port] [requests per run]
set -euo pipefail
host="${1:-127.0.0.1}"
port="${2:-6379}"
requests="${3:-200000}"
here="$(cd "$(dirname "$0")/.." && pwd)"
scripts="$here/limiter-redis/src/main/resources/dev/sluice/redis"
cli=(redis-cli -h "$host" -p "$port")

# the body limiter-redis sends for a token bucket: its two preludes, then the script (byte for
# byte, so the digest is the one limiter-redis uses)
sha="$({ cat "$scripts/epoch_check.lua"; echo; cat "$scripts/charge_once.lua"; echo;
  cat "$scripts/tat.lua"; } | "${cli[@]}" -x script load)"
# a node's epoch: the key a Sluice store writes when it starts; any value works once it is set
epoch="$("${cli[@]}" get sluice:epoch)"
if [ -z "$epoch" ]; then
  epoch="ceiling-$$"
  "${cli[@]}" set sluice:epoch "$epoch" > /dev/null
fi
echo "script $sha, epoch $epoch, $requests requests per run, $(uptime | sed 's/.*load/load/')"
for c in 1 16 64; do
  # 100,000 actors, a random one per call (__rand_int__), as many users would be
  redis-benchmark -h "$host" -p "$port" -c "$c" -n "$requests" -r 100000 --csv \
    EVALSHA "$sha" 2 "sluice:rate:{bench:ceiling-__rand_int__}:token-bucket" sluice:epoch \
    1000000000 1000000 1000000000 1 0 0 "$epoch" | sed "s/^/connections=$c,/"
done
