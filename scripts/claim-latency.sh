#!/usr/bin/env bash
# How long a claim takes, per policy, side by side in one run: the packaged jar on this machine (and, with
# BASELINE_JAR=<path>, an earlier build's jar, measured the same way right before it), started once per policy on a
# fresh local broker, with the default commit interval. For each jar and policy:
#   - synchronous claims (?wait=5s) of fresh keys and fresh values from 1 connection, then from 4 at once: how long
#     until the ruling. Each is a curl process: a loop pauses 10 to 20 ms between claims to start the next, and on a
#     small machine four loops take CPU from the instance; WAITERS below sends back to back without either;
#   - synchronous releases (DELETE ?wait=5s) of the keys the 1-connection claims bound, one after the other: how long
#     until the release has taken effect;
#   - synchronous erasures (DELETE ?erase=true&wait=30s) of the keys the 4-connection claims bound, one after the
#     other: how long until both stages have erased the name, and how many were not answered 200 (ERASED);
#   - asynchronous claims of fresh keys and values, each followed by GET /api/bindings/{key} every 5 ms until it
#     answers 200: how long until the binding is visible, which under first-wins waits for the grant.
#
#   - with RATE=<claims/s>: synchronous claims as sign-ups arrive, each on its own connection at random moments
#     (exponential gaps, RATE a second on average, so that arrivals do not wait for earlier rulings): how long until
#     the ruling. The connections above send their next claim soon after the last was ruled, so they often meet the
#     spacing of a stage's commits out of turn; arrivals on the users' clock mostly do not.
#   - with BURST=<n>: a second instance joins, and n synchronous claims (?wait=30s) are sent at once, six keys racing
#     for each value, alternately through either instance: how long until each ruling, and how many got none (202);
#     the scenario that once starved the stream threads (docs/benchmarks.md, "One wait loop"); and how long lookups
#     on either instance took while the claims waited.
#   - with WAITERS=<n> (or a list, "1 4"): n connections (wrk) send synchronous claims (?wait=5s) of fresh keys back
#     to back for 10 s, each the moment the last was answered (curl's loops above wait a few ms between claims to
#     start a process): how many were answered with their ruling (200), p50 / p90 / p99, and how many 202 at once
#     (valueguard.query.max-waiting reached), the instance's CPU per request (its local broker included) and its wait
#     loop thread's; then 10 s more with 2 connections looking up a key beside them: the lookups' rate and latency.
#     Needs wrk.
#
#   scripts/claim-latency.sh [claims per measurement, default 100]
#   BASELINE_JAR=/tmp/valueguard-before.jar scripts/claim-latency.sh 200
#   BURST=72 BASELINE_JAR=/tmp/valueguard-before.jar scripts/claim-latency.sh 50
#   RATE=5 scripts/claim-latency.sh 200
#   WAITERS=400 BASELINE_JAR=/tmp/valueguard-before.jar scripts/claim-latency.sh 20
#   WAITERS="1 4" scripts/claim-latency.sh 50
#   VALUEGUARD_ARGS="--spring.cloud.stream.kafka.streams.binder.configuration.commit.interval.ms=25" \
#     RATE=5 scripts/claim-latency.sh        # more arguments for every instance (split at spaces), to try a setting
#   KEEP_LOGS=/tmp/latency-logs scripts/claim-latency.sh   # keeps every instance's log
#   POLICIES=first-wins scripts/claim-latency.sh 1000   # one policy only (default: latest-wins first-wins); with
#                                                       # 200 claims the p99 is the second slowest, so it swings
set -euo pipefail
cd "$(dirname "$0")/.."
claims="${1:-100}"
./mvnw -B -ntp -q package -DskipTests
jar=$(ls target/valueguard-*.jar | head -1)
work=$(mktemp -d)
pid=""
second=""
cleanup() {
  if [ -n "$second" ]; then kill "$second" 2>/dev/null || true; wait "$second" 2>/dev/null || true; fi
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ -n "${KEEP_LOGS:-}" ]; then mkdir -p "$KEEP_LOGS" && cp "$work"/*.log "$KEEP_LOGS"/ 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
for port in 18080 18081 19092; do
  if (exec 3<>"/dev/tcp/localhost/$port") 2>/dev/null; then echo "port $port is in use: stop what holds it first" >&2; exit 1; fi
done

now_ms() { date +%s%3N; }
percentiles() {
  sort -n "$1" | awk -v name="$2" '
    function at(q) { i = int(NR * q); return t[(i < 1) ? 1 : i] }
    {t[NR] = $1}
    END {printf "%-70s p50 %4d ms, p90 %4d ms, p99 %4d ms, max %4d ms (%d)\n", name, at(0.5), at(0.9), at(0.99), t[NR], NR}'
}

sync_claims() {
  # $1: connections; each sends its share of $claims claims one after the other
  : > "$work/sync.txt"
  local workers=()
  for c in $(seq 1 "$1"); do
    (for i in $(seq 1 $((claims / $1))); do
      curl -s -o /dev/null -w '%{time_total}\n' -X PUT "localhost:18080/api/bindings/sync-$1-$c-$i?wait=5s" \
        -H 'Content-Type: text/plain' -d "sync-value-$1-$c-$i" | awk '{printf "%d\n", $1 * 1000}'
    done >> "$work/sync-$c.txt") &
    workers+=($!)
  done
  # the workers only: a bare wait would wait for the application too
  wait "${workers[@]}"
  cat "$work"/sync-*.txt > "$work/sync.txt"; rm -f "$work"/sync-*.txt
}

sync_releases() {
  # releases the keys sync_claims 1 bound, one after the other, each waiting until it has taken effect
  : > "$work/release.txt"
  for i in $(seq 1 "$claims"); do
    curl -s -o /dev/null -w '%{time_total}\n' -X DELETE "localhost:18080/api/bindings/sync-1-1-$i?wait=5s" \
      | awk '{printf "%d\n", $1 * 1000}' >> "$work/release.txt"
  done
}

sync_erasures() {
  # erases the keys sync_claims 4 bound, one after the other, each waiting until both stages have erased the name
  : > "$work/erase.txt"
  local unanswered=0 answer
  for c in 1 2 3 4; do
    for i in $(seq 1 $((claims / 4))); do
      answer=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -X DELETE \
        "localhost:18080/api/bindings/sync-4-$c-$i?erase=true&wait=30s")
      if [ "${answer%% *}" != 200 ]; then unanswered=$((unanswered + 1)); fi
      echo "${answer#* }" | awk '{printf "%d\n", $1 * 1000}' >> "$work/erase.txt"
    done
  done
  erasures_unanswered=$unanswered
}

open_claims() {
  # $claims synchronous claims, each sent on its own at exponentially distributed gaps of 1/$RATE s on average
  : > "$work/open.txt"
  local senders=()
  local gaps
  gaps=$(awk -v n="$claims" -v rate="$RATE" 'BEGIN {srand(42); for (i = 0; i < n; i++) printf "%.4f\n", -log(1 - rand()) / rate}')
  local i=0
  for gap in $gaps; do
    i=$((i + 1))
    sleep "$gap"
    (curl -s -o /dev/null -w '%{time_total}\n' -X PUT "localhost:18080/api/bindings/open-$i?wait=5s" \
      -H 'Content-Type: text/plain' -d "open-value-$i" | awk '{printf "%d\n", $1 * 1000}' >> "$work/open.txt") &
    senders+=($!)
  done
  wait "${senders[@]}"
}

waiters_line() {
  # $1: name, $2: the instance's CPU ticks meanwhile (empty: not measured), $3: wrk's report, $4: the wait loop's
  # CPU ticks meanwhile (optional)
  awk -v name="$1" -v ticks="$2" -v loop="${4:-}" -v hz="$(getconf CLK_TCK)" '
    /^outcomes/ {r = $2; a = $3; o = $4}
    $1 == "50%" {p50 = $2} $1 == "90%" {p90 = $2} $1 == "99%" {p99 = $2}
    END {
      cpu = (ticks != "" && r + a + o > 0) ? sprintf("; instance CPU %.2f ms per request", ticks * 1000 / hz / (r + a + o)) : ""
      if (loop != "" && r + a + o > 0) cpu = cpu sprintf(", wait loop %.3f ms", loop * 1000 / hz / (r + a + o))
      printf "%-70s %d ruled (200), %d answered 202, %d other; p50 %s, p90 %s, p99 %s%s\n", name, r, a, o, p50, p90,
        p99, cpu
    }' "$3"
}

loop_ticks() {
  # user + system clock ticks of the instance's wait loop thread so far (0 before its first wait)
  local task
  for task in /proc/$pid/task/*; do
    if grep -q '^valueguard-rul' "$task/comm" 2>/dev/null; then
      sed 's/.*) //' "$task/stat" | awk '{print $12 + $13}'
      return
    fi
  done
  echo 0
}

back_to_back() {
  # $1: connections, each sending synchronous claims for 10 s as fast as they are answered (wait.lua), into
  # waiters.txt; the run's tag keeps its keys apart from every earlier run's; wrk wants no more threads than connections
  wrk -t$(( $1 < 2 ? $1 : 2 )) -c"$1" -d10s --timeout 10s --latency -s "$work/wait.lua" http://localhost:18080 \
    -- "$(date +%s%N)" > "$work/waiters.txt"
}

waiters() {
  # $1: name, $2: connections. They send synchronous claims of fresh keys and values back to back for 10 s: how many
  # got their ruling, at what CPU; then 10 s more with 2 connections looking up a key: whether lookups kept their pace.
  cat > "$work/wait.lua" <<'LUA'
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end
function init(args)
  -- args[1]: a tag of this wrk run; LuaJIT's math.random starts from the same seed in every run, and a key claimed
  -- again for its value is answered at once, without waiting for any commit
  prefix = "waiter-" .. args[1] .. "-" .. id .. "-"
  counter, ruled, accepted, other = 0, 0, 0, 0
end
function request()
  counter = counter + 1
  return wrk.format("PUT", "/api/bindings/" .. prefix .. counter .. "?wait=5s",
    { ["Content-Type"] = "text/plain" }, "v-" .. prefix .. counter)
end
function response(status, headers, body)
  if status == 200 then ruled = ruled + 1 elseif status == 202 then accepted = accepted + 1 else other = other + 1 end
end
function done(summary, latency, requests)
  local r, a, o = 0, 0, 0
  for _, t in ipairs(threads) do r = r + t:get("ruled"); a = a + t:get("accepted"); o = o + t:get("other") end
  io.write(string.format("outcomes %d %d %d\n", r, a, o))
end
LUA
  # alone first, for the instance's CPU per request (its local broker included; user + system ticks from /proc)
  # and the wait loop's own thread ("valueguard-rulings", truncated by the kernel): what the rounds of reads cost
  local ticks_before ticks_after loop_before loop_after
  ticks_before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  loop_before=$(loop_ticks)
  back_to_back "$2"
  ticks_after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  loop_after=$(loop_ticks)
  waiters_line "$1: $2 connections waiting" $((ticks_after - ticks_before)) "$work/waiters.txt" \
    $((loop_after - loop_before))
  # then with lookups beside them
  wrk -t1 -c2 -d12s --latency http://localhost:18080/api/bindings/warm-1 > "$work/lookups.txt" &
  local lookups=$!
  sleep 1
  back_to_back "$2"
  wait "$lookups"
  waiters_line "$1: $2 connections waiting, lookups beside" "" "$work/waiters.txt"
  awk -v name="$1: lookups meanwhile (2 connections)" '
    /Requests\/sec/ {rps = $2} $1 == "50%" {p50 = $2} $1 == "99%" {p99 = $2}
    END {printf "%-70s %s/s, p50 %s, p99 %s\n", name, rps, p50, p99}' "$work/lookups.txt"
}

burst() {
  # $1: jar, $2: policy, $3: name. A second instance joins the first one's broker and application.
  java -Xmx1g -jar "$1" --server.port=18081 --valueguard.embedded-kafka.enabled=false \
    --spring.kafka.bootstrap-servers=localhost:19092 --valueguard.state-dir="$work/state-b" \
    --valueguard.policy="$2" ${VALUEGUARD_ARGS:-} > "$work/$(basename "$1" .jar)-$2-b.log" 2>&1 &
  second=$!
  until curl -sf localhost:18081/actuator/health/readiness >/dev/null \
      && curl -sf localhost:18080/actuator/health/readiness >/dev/null \
      && [ "$(curl -s localhost:18080/api/instances | grep -o '"host"' | wc -l)" -ge 2 ]; do sleep 1; done
  for i in $(seq 1 20); do
    curl -s -o /dev/null -X PUT "localhost:$((18080 + i % 2))/api/bindings/warm-b-$i?wait=5s" \
      -H 'Content-Type: text/plain' -d "warm-b-$i"
  done
  : > "$work/burst.txt"
  local racers=()
  for i in $(seq 0 $((BURST - 1))); do
    (curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -X PUT \
      "localhost:$((18080 + i % 2))/api/bindings/burst-$i?wait=30s" -H 'Content-Type: text/plain' \
      -d "burst-value-$((i % (BURST / 6)))" >> "$work/burst.txt") &
    racers+=($!)
  done
  # lookups while the claims wait: each instance's request threads must still answer them
  : > "$work/during.txt"
  (while [ "$(wc -l < "$work/burst.txt")" -lt "$BURST" ]; do
     for port in 18080 18081; do
       curl -s -o /dev/null -w '%{time_total}\n' "localhost:$port/api/bindings/warm-b-1" \
         | awk '{printf "%d\n", $1 * 1000}' >> "$work/during.txt"
     done
     sleep 0.05
   done) &
  local looker=$!
  wait "${racers[@]}"
  wait "$looker"
  awk '$1 != 200 {n++} END {printf "%-70s %d of %d without a ruling (202)\n", name, n, NR}' \
    name="$3: burst of $BURST, 2 instances" "$work/burst.txt"
  awk '{printf "%d\n", $2 * 1000}' "$work/burst.txt" > "$work/burst-ms.txt"
  percentiles "$work/burst-ms.txt" "$3: burst of $BURST, 2 instances, until answered"
  if [ -s "$work/during.txt" ]; then
    percentiles "$work/during.txt" "$3: lookups during the burst"
  fi
  kill "$second"; wait "$second" 2>/dev/null || true; second=""
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $claims claims per measurement"
jars=("$jar")
if [ -n "${BASELINE_JAR:-}" ]; then jars=("$BASELINE_JAR" "$jar"); fi
for measured in "${jars[@]}"; do
for policy in ${POLICIES:-latest-wins first-wins}; do
  rm -rf "$work/kafka" "$work/state" "$work/state-b"
  java -Xmx1g -jar "$measured" --server.port=18080 --valueguard.embedded-kafka.port=19092 \
    --valueguard.embedded-kafka.log-dir="$work/kafka" --valueguard.state-dir="$work/state" \
    --valueguard.policy="$policy" ${VALUEGUARD_ARGS:-} > "$work/$(basename "$measured" .jar)-$policy.log" 2>&1 &
  pid=$!
  until curl -sf localhost:18080/actuator/health/readiness >/dev/null; do sleep 1; done
  # warm-up: the first claims pay for class loading and compilation
  for i in $(seq 1 50); do
    curl -s -o /dev/null -X PUT "localhost:18080/api/bindings/warm-$i?wait=5s" -H 'Content-Type: text/plain' -d "warm-$i"
  done
  name="$(basename "$measured") $policy"
  sync_claims 1
  percentiles "$work/sync.txt" "$name: synchronous claim, 1 connection"
  sync_releases
  percentiles "$work/release.txt" "$name: synchronous release, 1 connection"
  sync_claims 4
  percentiles "$work/sync.txt" "$name: synchronous claim, 4 connections"
  sync_erasures
  percentiles "$work/erase.txt" "$name: synchronous erasure, 1 connection ($erasures_unanswered not 200)"
  if [ -n "${RATE:-}" ]; then
    open_claims
    percentiles "$work/open.txt" "$name: synchronous claim, arriving at $RATE/s"
  fi
  : > "$work/visible.txt"
  for i in $(seq 1 "$claims"); do
    start=$(now_ms)
    curl -s -o /dev/null -X PUT "localhost:18080/api/bindings/async-$i" -H 'Content-Type: text/plain' -d "async-value-$i"
    until [ "$(curl -s -o /dev/null -w '%{http_code}' "localhost:18080/api/bindings/async-$i")" = 200 ]; do sleep 0.005; done
    echo $(( $(now_ms) - start )) >> "$work/visible.txt"
  done
  percentiles "$work/visible.txt" "$name: claim to binding visible"
  for connections in ${WAITERS:-}; do
    waiters "$name" "$connections"
  done
  if [ -n "${BURST:-}" ]; then
    burst "$measured" "$policy" "$name"
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
done
done
