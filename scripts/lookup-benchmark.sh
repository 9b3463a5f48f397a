#!/usr/bin/env bash
# Lookups answered locally against lookups forwarded to another instance, side by side in one run, with the floor of
# Spring MVC answering /actuator/health/liveness: two instances of the packaged jar on this machine (B, the peer, starts
# the local Kafka broker; A is asked), wrk with 2 threads and 8 connections for 15 s each. Needs wrk (Debian package wrk).
# Besides requests/s and latency, the CPU both instances spent per 1,000 requests (from /proc; wrk's own is left out):
# on a machine where wrk and both instances share the cores, that is what bounds requests/s.
#
#   scripts/lookup-benchmark.sh [seconds] [warm-up seconds]
#
# First, SYNC_CLAIMS (default 100) synchronous claims (?wait=5s) one after the other on instance A: how long until
# each ruling shows in both stores, the latency a registration form sees.
#
# Every path is first driven for the warm-up time without measuring (default 30 s each, in two rounds): a cold forward path
# spends most of its first half-minute compiling, which once made forwards look twice as expensive as they are.
#
# JVM_OPTS_A and JVM_OPTS_B add JVM options to either instance, e.g. a flight recording:
#   JVM_OPTS_A=-XX:StartFlightRecording=settings=profile,filename=/tmp/a.jfr scripts/lookup-benchmark.sh
# PIN=1 stands in for separate hosts on a 2-core machine: instance A (the one asked) runs on core 0 alone, instance B (with the broker)
# and wrk share core 1 (taskset). Then A's core bounds local lookups and forwards alike, as it would if B had a host
# of its own; B sharing its core with wrk can only hold forwards back, never flatter them.
#
# SECURITY=1 then runs it all again with security on (docs/security.md), side by side with the open run: bearer
# tokens (RS256 JWTs signed by a key made here with openssl, checked against its public key), an HTTP Basic user
# (bcrypt), and the instances signing their calls to each other; the local and forwarded lookups are measured with a
# token, and the local one with Basic too. Since two phases minutes apart differ by more than security costs on a
# shared machine, the secured phase also starts an open instance of its own (C, application id bench-open) beside the
# secured ones, and measures local lookups open (C), with a bearer token and with Basic (A) in ROUNDS (default 3)
# alternating rounds: the ratios to read are the medians of that table. OPEN_PHASE=0 leaves the open phase out.
#
# JAR=<path> measures that jar instead of building and packaging this checkout: run it for an earlier build and then
# for this one, one right after the other, and compare the ratios of the two runs (forwarded to local), not their
# requests/s.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-15}"
warmup="${2:-30}"
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
if [ -n "${JAR:-}" ]; then
  jar="$JAR"
else
  ./mvnw -B -ntp -q package -DskipTests
  jar=$(ls target/valueguard-*.jar | head -1)
fi
work=$(mktemp -d)
kafka_port=19092
pin_a=(); pin_b=()
if [ "${PIN:-0}" = 1 ]; then pin_a=(taskset -c 0); pin_b=(taskset -c 1); fi
pids=()
# the last started first, so that the broker in B still runs while the others' streams clients close
cleanup() {
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; wait "${pids[i]}" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# an instance left over from another run would answer in place of ours
for port in 18080 18081 $kafka_port; do
  if (exec 3<>"/dev/tcp/localhost/$port") 2>/dev/null; then echo "port $port is in use: stop what holds it first" >&2; exit 1; fi
done

# One run: two instances on a fresh broker, then the measurements. $1: open or secured.
phase() {
mode="$1"
rm -rf "$work/kafka" "$work/a" "$work/b" "$work/c"
secured=(); auth=(); wrk_auth=()
if [ "$mode" = secured ]; then
  secured=(--spring.security.oauth2.resourceserver.jwt.public-key-location="file:$work/public.pem"
    --valueguard.security.require-authentication=true --valueguard.security.internal-secret="$internal_secret"
    --valueguard.security.users[0].name=bench --valueguard.security.users[0].password="$bench_hash"
    --valueguard.security.users[0].roles=read,write)
  auth=(-H "Authorization: Bearer $token"); wrk_auth=(-H "Authorization: Bearer $token")
fi
echo
echo "## $mode"
# B hosts the broker, so that A, the instance asked, carries only its own work, as C (below) does
"${pin_b[@]}" java -Xmx1g ${JVM_OPTS_B:-} -jar "$jar" --server.port=18081 --valueguard.embedded-kafka.port=$kafka_port \
  --valueguard.embedded-kafka.log-dir="$work/kafka" --valueguard.state-dir="$work/b" "${secured[@]}" > "$work/b.log" 2>&1 &
pids+=($!)
until curl -sf localhost:18081/actuator/health/readiness >/dev/null; do sleep 1; done
"${pin_a[@]}" java -Xmx1g ${JVM_OPTS_A:-} -jar "$jar" --server.port=18080 --spring.kafka.bootstrap-servers=localhost:$kafka_port \
  --valueguard.embedded-kafka.enabled=false --valueguard.state-dir="$work/a" "${secured[@]}" > "$work/a.log" 2>&1 &
pids+=($!)
until curl -sf localhost:18081/actuator/health/readiness >/dev/null \
  && curl -sf localhost:18080/actuator/health/readiness >/dev/null; do sleep 1; done
sleep 5

# claims until instance A holds one key itself and must forward another
local_key=""; remote_key=""
for i in $(seq 1 200); do
  curl -s -o /dev/null "${auth[@]}" -X PUT "localhost:18080/api/bindings/bench-$i?wait=5s" -H 'Content-Type: text/plain' -d "seat-$i"
  served=$(curl -s "${auth[@]}" -D - -o /dev/null "localhost:18080/api/bindings/bench-$i" | tr -d '\r' | awk -F': ' 'tolower($1)=="x-valueguard-served-by"{print $2}')
  if [ "$served" = "localhost:18080" ] && [ -z "$local_key" ]; then local_key="bench-$i"; fi
  if [ "$served" = "localhost:18081" ] && [ -z "$remote_key" ]; then remote_key="bench-$i"; fi
  if [ -n "$local_key" ] && [ -n "$remote_key" ]; then break; fi
done
echo "local key: $local_key, forwarded key: $remote_key"

# synchronous claims (?wait=) on an idle pipeline: how long until the ruling is visible in both stores; every other claim
# takes the value the one before holds, and wins it (a later timestamp), evicting the holder
: > "$work/sync.txt"
for i in $(seq 1 ${SYNC_CLAIMS:-100}); do
  curl -s -o /dev/null "${auth[@]}" -w '%{time_total}\n' -X PUT "localhost:18080/api/bindings/sync-$i?wait=5s" \
    -H 'Content-Type: text/plain' -d "sync-seat-$(( (i + 1) / 2 ))" >> "$work/sync.txt"
done
sort -n "$work/sync.txt" | awk '{t[NR] = $1 * 1000} END {printf "synchronous claims (?wait=5s, %d in a row): p50 %.0f ms, p90 %.0f ms, max %.0f ms\n", NR, t[int(NR * 0.5)], t[int(NR * 0.9)], t[NR]}'

# CPU time (user + system) of one instance, in clock ticks (fields 14 and 15 of /proc/<pid>/stat)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
# the instance asked (its CPU is column A) and the other one (column B), by their place in pids
asked=1; other=0
run() {
  local name="$1" url="$2" a b
  shift 2
  a=$(ticks "${pids[asked]}"); b=$(ticks "${pids[other]}")
  "${pin_b[@]}" wrk -t2 -c8 -d"${seconds}s" --latency "$@" "$url" > "$work/wrk.txt"
  a=$(($(ticks "${pids[asked]}") - a)); b=$(($(ticks "${pids[other]}") - b))
  local rps p50 p99 requests
  rps=$(awk '/Requests\/sec/{print $2}' "$work/wrk.txt")
  p50=$(awk '$1=="50%"{print $2}' "$work/wrk.txt")
  p99=$(awk '$1=="99%"{print $2}' "$work/wrk.txt")
  requests=$(awk '/requests in/{print $1}' "$work/wrk.txt")
  per_thousand() { awk -v t="$1" -v hz="$hz" -v n="$requests" 'BEGIN{printf "%.0f", t * 1000 / hz / n * 1000}'; }
  echo "| $name | $rps | $p50 | $p99 | $(per_thousand $((a + b))) | $(per_thousand $a) | $(per_thousand $b) |"
}
urls=("http://localhost:18080/actuator/health/liveness" "http://localhost:18080/api/bindings/$local_key"
  "http://localhost:18080/api/bindings/$remote_key")
for round in 1 2; do
  for url in "${urls[@]}"; do "${pin_b[@]}" wrk -t2 -c8 -d"$((warmup / 2))s" "${wrk_auth[@]}" "$url" > /dev/null; done
done
echo "| lookup | requests/s | p50 | p99 | CPU ms per 1,000 requests: both | A (asked) | B |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
if [ "$mode" = open ]; then
  run "floor: /actuator/health/liveness" "${urls[0]}"
  run "key held by the instance asked" "${urls[1]}"
  run "key it must forward" "${urls[2]}"
else
  run "key held by the instance asked, bearer token" "${urls[1]}" -H "Authorization: Bearer $token"
  run "key held by the instance asked, HTTP Basic" "${urls[1]}" -H "Authorization: Basic $basic"
  run "key it must forward, bearer token, signed forward" "${urls[2]}" -H "Authorization: Bearer $token"
  side_by_side
fi
for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; wait "${pids[i]}" 2>/dev/null || true; done
pids=()
}

# Local lookups open (instance C, open, on the same broker under an application id of its own) and secured (A, bearer
# and Basic), in alternating rounds, each path warmed up first; then the median ratios to the open lookup.
side_by_side() {
  "${pin_a[@]}" java -Xmx1g ${JVM_OPTS_C:-} -jar "$jar" --server.port=18082 --spring.kafka.bootstrap-servers=localhost:$kafka_port \
    --valueguard.embedded-kafka.enabled=false --valueguard.state-dir="$work/c" --valueguard.application-id=bench-open \
    --valueguard.topics.claims=bench-open.claims --valueguard.topics.bindings=bench-open.bindings \
    --valueguard.topics.evictions=bench-open.evictions --valueguard.topics.dlq=bench-open.dlq > "$work/c.log" 2>&1 &
  pids+=($!)
  until curl -sf localhost:18082/actuator/health/readiness >/dev/null; do sleep 1; done
  curl -s -o /dev/null -X PUT "localhost:18082/api/bindings/$local_key?wait=5s" -H 'Content-Type: text/plain' -d "seat-open"
  local open_url="http://localhost:18082/api/bindings/$local_key" round rps
  # C is minutes younger than A, which has served every path of both phases: it gets their worth of warm-up first
  "${pin_b[@]}" wrk -t2 -c8 -d"$((warmup * 4))s" "$open_url" > /dev/null
  for round in 1 2; do
    "${pin_b[@]}" wrk -t2 -c8 -d"$((warmup / 2))s" "$open_url" > /dev/null
    "${pin_b[@]}" wrk -t2 -c8 -d"$((warmup / 2))s" -H "Authorization: Bearer $token" "${urls[1]}" > /dev/null
    "${pin_b[@]}" wrk -t2 -c8 -d"$((warmup / 2))s" -H "Authorization: Basic $basic" "${urls[1]}" > /dev/null
  done
  echo
  echo "Local lookups side by side, ${ROUNDS:-3} alternating rounds (A: the instance asked; B: the secured peer)"
  echo
  echo "| lookup | requests/s | p50 | p99 | CPU ms per 1,000 requests: A and B | A (asked) | B |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  : > "$work/rounds.txt"
  for round in $(seq 1 "${ROUNDS:-3}"); do
    asked=2; other=0
    run "round $round: open (instance C)" "$open_url"
    rps=$(awk '/Requests\/sec/{print $2}' "$work/wrk.txt")
    asked=1; other=0
    run "round $round: bearer token (A)" "${urls[1]}" -H "Authorization: Bearer $token"
    rps="$rps $(awk '/Requests\/sec/{print $2}' "$work/wrk.txt")"
    run "round $round: HTTP Basic (A)" "${urls[1]}" -H "Authorization: Basic $basic"
    echo "$rps $(awk '/Requests\/sec/{print $2}' "$work/wrk.txt")" >> "$work/rounds.txt"
  done
  median() { awk -v f="$1" '{print $f / $1}' "$work/rounds.txt" | sort -n | awk '{r[NR] = $1} END {printf "%.2f", r[int((NR + 1) / 2)]}'; }
  echo
  echo "median of ${ROUNDS:-3} rounds, requests/s against the open instance: bearer $(median 2)x, Basic $(median 3)x"
}

if [ "${SECURITY:-0}" = 1 ]; then
  # an RS256 key pair, a token for it, and a bcrypt hash of the Basic user's password (with the jar's own bcrypt)
  openssl genrsa -out "$work/private.pem" 2048 2>/dev/null
  openssl rsa -in "$work/private.pem" -pubout -out "$work/public.pem" 2>/dev/null
  b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
  now=$(date +%s)
  header=$(printf '{"alg":"RS256","typ":"JWT"}' | b64url)
  payload=$(printf '{"sub":"bench","scope":"valueguard.read valueguard.write","iat":%d,"exp":%d}' "$now" $((now + 7200)) | b64url)
  token="$header.$payload.$(printf '%s.%s' "$header" "$payload" | openssl dgst -sha256 -sign "$work/private.pem" -binary | b64url)"
  internal_secret=$(openssl rand -hex 24)
  unzip -o -q -j "$jar" 'BOOT-INF/lib/spring-security-crypto-*.jar' 'BOOT-INF/lib/commons-logging-*.jar' -d "$work/crypto" 2>/dev/null || true
  cat > "$work/Hash.java" <<'JAVA'
public class Hash {
  public static void main(String[] args) {
    System.out.print(new org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder(10).encode(args[0]));
  }
}
JAVA
  bench_hash=$(java -cp "$work/crypto/*" "$work/Hash.java" bench-password)
  basic=$(printf 'bench:bench-password' | openssl base64 -A)
fi
# OPEN_PHASE=0 with SECURITY=1 runs the secured phase alone (its side-by-side rounds have an open instance of their own)
if [ "${OPEN_PHASE:-1}" = 1 ]; then phase open; fi
if [ "${SECURITY:-0}" = 1 ]; then phase secured; fi
