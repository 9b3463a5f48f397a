#!/usr/bin/env bash
# What first-wins costs a claim, side by side with latest-wins in one run: the packaged jar on this machine, started
# once per policy on a fresh local broker, with the default commit interval. For each policy:
#   - synchronous claims (?wait=5s) of fresh keys and fresh values, one after the other: how long until the ruling;
#   - asynchronous claims of fresh keys and values, each followed by GET /api/bindings/{key} every 5 ms until it
#     answers 200: how long until the binding is visible, which under first-wins waits for the grant.
#
#   scripts/claim-latency.sh [claims per measurement, default 100]
set -euo pipefail
cd "$(dirname "$0")/.."
claims="${1:-100}"
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

now_ms() { date +%s%3N; }
percentiles() {
  sort -n "$1" | awk -v name="$2" '
    function at(q) { i = int(NR * q); return t[(i < 1) ? 1 : i] }
    {t[NR] = $1}
    END {printf "%-44s p50 %4d ms, p90 %4d ms, p99 %4d ms, max %4d ms (%d)\n", name, at(0.5), at(0.9), at(0.99), t[NR], NR}'
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $claims claims per measurement"
for policy in latest-wins first-wins; do
  rm -rf "$work/kafka" "$work/state"
  java -Xmx1g -jar "$jar" --server.port=18080 --valueguard.embedded-kafka.port=19092 \
    --valueguard.embedded-kafka.log-dir="$work/kafka" --valueguard.state-dir="$work/state" \
    --valueguard.policy="$policy" > "$work/$policy.log" 2>&1 &
  pid=$!
  until curl -sf localhost:18080/actuator/health/readiness >/dev/null; do sleep 1; done
  # warm-up: the first claims pay for class loading and compilation
  for i in $(seq 1 50); do
    curl -s -o /dev/null -X PUT "localhost:18080/api/bindings/warm-$i?wait=5s" -H 'Content-Type: text/plain' -d "warm-$i"
  done

  : > "$work/sync.txt"
  for i in $(seq 1 "$claims"); do
    curl -s -o /dev/null -w '%{time_total}\n' -X PUT "localhost:18080/api/bindings/sync-$i?wait=5s" \
      -H 'Content-Type: text/plain' -d "sync-value-$i" | awk '{printf "%d\n", $1 * 1000}' >> "$work/sync.txt"
  done
  : > "$work/visible.txt"
  for i in $(seq 1 "$claims"); do
    start=$(now_ms)
    curl -s -o /dev/null -X PUT "localhost:18080/api/bindings/async-$i" -H 'Content-Type: text/plain' -d "async-value-$i"
    until [ "$(curl -s -o /dev/null -w '%{http_code}' "localhost:18080/api/bindings/async-$i")" = 200 ]; do sleep 0.005; done
    echo $(( $(now_ms) - start )) >> "$work/visible.txt"
  done
  percentiles "$work/sync.txt" "$policy: synchronous claim (?wait=5s)"
  percentiles "$work/visible.txt" "$policy: claim to binding visible"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
done
