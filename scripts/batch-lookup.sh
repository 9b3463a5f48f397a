#!/usr/bin/env bash
# Batch lookups (POST /api/bindings/lookup) of keys this instance holds: one instance of the packaged jar with its
# local broker, 1,000 keys claimed, then wrk with 2 threads and 2 connections asking for the same BATCH keys (default
# 100, a tenth of them) for [seconds] after as long again of warm-up: batches/s, latency and the instance's CPU per
# batch (from /proc, its broker included; wrk's own left out). With BASELINE_JAR=<path>, an earlier build's jar is
# measured the same way, and the two alternate for ROUNDS rounds (default 2), each on a fresh instance.
# Needs wrk (Debian package wrk).
#
#   scripts/batch-lookup.sh [seconds, default 15]
#   BASELINE_JAR=/tmp/valueguard-before.jar ROUNDS=2 BATCH=100 scripts/batch-lookup.sh 15
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-15}"
batch="${BATCH:-100}"
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
./mvnw -B -ntp -q package -DskipTests
jar=$(ls target/valueguard-*.jar | head -1)
work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
for port in 18080 19092; do
  if (exec 3<>"/dev/tcp/localhost/$port") 2>/dev/null; then echo "port $port is in use: stop what holds it first" >&2; exit 1; fi
done

# the same keys in every batch, spread over the 1,000 claimed (and so over the partitions)
body=$(awk -v n="$batch" 'BEGIN {step = int(1000 / n); if (step < 1) step = 1;
  printf "["; for (i = 0; i < n; i++) printf "%s\"k-%d\"", (i ? "," : ""), (i * step) % 1000 + 1; printf "]"}')
cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
LUA

measure() {
  # $1: jar, $2: name
  rm -rf "$work/kafka" "$work/state"
  java -Xmx1g -jar "$1" --server.port=18080 --valueguard.embedded-kafka.port=19092 \
    --valueguard.embedded-kafka.log-dir="$work/kafka" --valueguard.state-dir="$work/state" > "$work/instance.log" 2>&1 &
  pid=$!
  until curl -sf localhost:18080/actuator/health/readiness >/dev/null; do sleep 1; done
  for i in $(seq 1 1000); do
    curl -s -o /dev/null -X PUT "localhost:18080/api/bindings/k-$i" -H 'Content-Type: text/plain' -d "v-$i"
  done
  until [ "$(curl -s -o /dev/null -w '%{http_code}' localhost:18080/api/bindings/k-1000)" = 200 ]; do sleep 0.2; done
  local found
  found=$(curl -s -X POST localhost:18080/api/bindings/lookup -H 'Content-Type: application/json' -d "$body" \
    | grep -o '"value"' | wc -l)
  if [ "$found" -ne "$batch" ]; then echo "$2: a batch found $found of $batch keys" >&2; exit 1; fi
  wrk -t2 -c2 -d"${seconds}s" -s "$work/post.lua" http://localhost:18080/api/bindings/lookup > /dev/null
  local ticks_before ticks_after
  ticks_before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  wrk -t2 -c2 -d"${seconds}s" --latency -s "$work/post.lua" http://localhost:18080/api/bindings/lookup \
    > "$work/wrk.txt"
  ticks_after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  awk -v name="$2" -v ticks=$((ticks_after - ticks_before)) -v hz="$(getconf CLK_TCK)" -v batch="$batch" '
    /requests in/ {n = $1} /Requests\/sec/ {rps = $2} $1 == "50%" {p50 = $2} $1 == "99%" {p99 = $2}
    END {printf "%-40s %9.0f batches/s of %d keys, p50 %s, p99 %s, instance CPU %.3f ms per batch\n",
      name, rps, batch, p50, p99, ticks * 1000 / hz / n}' "$work/wrk.txt"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $seconds s per measurement after as long of warm-up"
for round in $(seq 1 "${ROUNDS:-2}"); do
  if [ -n "${BASELINE_JAR:-}" ]; then measure "$BASELINE_JAR" "$(basename "$BASELINE_JAR"), round $round"; fi
  measure "$jar" "$(basename "$jar"), round $round"
done
