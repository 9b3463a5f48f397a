#!/usr/bin/env bash
# Benchmarks against the packaged service, each part in JVMs of its own next to a broker in its own JVM; results in
# docs/benchmarks.md, and each run's table in target/benchmark/<time>/report.md, beside its logs and recordings (the
# broker's data and the applications' state are deleted when the run ends).
#
#   scripts/benchmark.sh [claims] [keys] [values] [partitions] [guarantee]
#       Throughput against the plain table a user would write without ValueGuard, side by side for each setting
#       (defaults; ValueGuard at DEBUG recording; ValueGuard with 16 KiB batches; both with 128 KiB batches; both at
#       commit.interval.ms=1000): claims/s of each, the ratio, CPU per claim of application and broker, offsets
#       written per claim, and the share of the run the busiest thread ran (CPU by kind of thread in the report, and
#       the broker's requests per 1,000 claims by kind, with their handling time, and each application's GC from its
#       log beside the report: collections, seconds paused, the longest pause, heap committed). In every round of the
#       first setting the seed's design runs too (docs/benchmarks.md, "The seed's design as a second baseline"): its
#       claims/s, CPU, resident set and GC beside ValueGuard's, their median ratio, and the values its table holds twice.
#       Defaults: 300000 100000 50000 6 exactly_once_v2.
#       BENCH_OPTS passes more: -Dvalueguard.bench.settings=1,3 runs only those rows; -Dvalueguard.bench.rounds=5
#       runs each row five times, baseline and ValueGuard alternating, and reports the median ratio;
#       -Dvalueguard.bench.partitioner=crc32 writes the claims where librdkafka's default partitioner puts them, most
#       on another partition than their key's, which ValueGuard reroutes (docs/benchmarks.md, "Claims from a producer
#       with another partitioner");
#       -Dvalueguard.bench.jfr=true records a JDK Flight Recorder profile of each application into
#       target/benchmark/<time>/; -Dvalueguard.bench.perf=true readies a run under `perf record` for
#       scripts/perf-summary.py (native code included: docs/benchmarks.md, "Where a claim's time goes"); -Dvalueguard.bench.valueguard-arguments="--name=value ..." gives every ValueGuard
#       run more arguments, to try a setting; -Dvalueguard.bench.row-arguments="--name=value ..." adds a row with them
#       instead (row 9, or 10 after -Dvalueguard.bench.compare-jar's), to set it beside the defaults;
#       -Dvalueguard.bench.row-jvm-options="-XX:..." and -Dvalueguard.bench.row-environment="NAME=value ..." add a row
#       of ValueGuard run with those JVM options and environment variables (after the rows above), to set beside the
#       defaults what a deployment sets around the application; a ";" between options starts another such row
#       ("-Xms384m ; -Xms640m"), each with the environment variables.
#   scripts/benchmark.sh memory [keys] [heap MiB] [block cache MiB]
#       Resident memory of one instance holding [keys] keys and half as many values, against heap + RocksDB budget
#       + 200 MiB; then its restore with the state directory wiped, records/s per store against a plain consumer of
#       the same changelog. Defaults: 1000000 1024 256.
#   scripts/benchmark.sh scale [keyspaces] [block cache MiB]
#       The cost curve: for each keyspace (comma-separated), twice as many claims for half as many values, the plain
#       table and ValueGuard (defaults, one instance each) side by side: claims/s and the ratio, resident memory while
#       claiming and at rest against heap + RocksDB budget + 200 MiB, disk per million entries, readiness after a restart
#       with the state directory wiped, and a standby's catch-up and takeover when the instance stops; the stores' index
#       and filter estimate against the cache's share for them every 30 s while claiming (index-filter-<keys>.csv, and
#       when it passed the share, with the claims rate then: where the rate falls against where the alert fires), each
#       application's GC from its log beside the report; a plot of the
#       curve in target/benchmark/scale-<time>/cost-curve.png. Defaults: 100000,1000000,10000000 64. The first two
#       points take 5 to 15 minutes on 2 cores; the third 40 minutes with a 256 MB cache, and at 64 MB over an hour
#       (its stores outgrow the cache; docs/benchmarks.md, "The cost curve"), and more than 8 GiB of disk.
#       BENCH_OPTS=-Dvalueguard.bench.earlier-report=target/benchmark/scale-<time>/report.md adds an earlier run's
#       rows (same block cache) for keyspaces this run leaves out, so a curve can be run in parts.
#   scripts/benchmark.sh latency [seconds] [claims/s]
#       Claim-to-eviction latency (p50, p90, p99) seen by a read_committed consumer of the evictions topic, at
#       [claims/s], by default half of the maximum throughput measured first in the same run (over the measured
#       seconds, and over their second half, which leaves out a backlog carried from the warm-up), and how long each
#       stage's commits took under that load, and the seconds of load in which an eviction took over 500 ms (beside
#       each JVM's GC log in target/benchmark/<time>/), and what the instance's and the broker's collectors paused
#       over the measured seconds. Default: 60 s. BENCH_OPTS=-Dvalueguard.bench.jfr=true also
#       records the instance under load with JDK Flight Recorder.
#   scripts/benchmark.sh retention [claims] [retention]
#       Churn (keys that claim a value, claim another, let go and never come back) with and without
#       valueguard.retention, side by side: claims/s and their ratio, store entries while running and at the end, claims
#       refused, changelog size after compaction, time to ready after a wiped restart, and each run's GC until it caught
#       up. Defaults: 5000000 1000s
#       (record i is stamped i ms after the first, so 1000s of stream time is a million records), 6 partitions
#       (BENCH_OPTS=-Dvalueguard.bench.partitions=2 for fewer: a task's sweep then has more entries to keep up with;
#       -Dvalueguard.bench.jfr=true keeps each run's recording until its restart in <run>-until-restart.jfr;
#       -Dvalueguard.bench.rounds=3 runs the pair three times, in turn first and second, and reports each round's
#       ratio and their median, the changelogs and the wiped restart measured in the first round only).
#   scripts/benchmark.sh filters [entries per store] [reads per round]
#       What partitioned index and filters (valueguard.rocksdb.partitioned-filters) cost a read while every index and
#       filter block fits the cache: two RocksDB stores, whole blocks and partitioned, read in alternating rounds;
#       nanoseconds per read of each and their ratio. Defaults: 170000 1000000 (a partition's share of 1,000,000 keys).
#   Throughput, scale, latency and retention take BENCH_OPTS=-Dvalueguard.bench.jvm-options="-XX:..." for JVM options
#   of every application (the plain table's too), and -Dvalueguard.bench.valueguard-jvm-options="-XX:..." and
#   -Dvalueguard.bench.valueguard-environment="NAME=value ..." for JVM options and environment variables of
#   ValueGuard's instances only (a variable exported to this script reaches the broker's JVM as well).
set -euo pipefail
cd "$(dirname "$0")/.."
# BENCH_OPTS splits into words as a shell line does, quotes kept, so that one property can hold several
# space-separated items: BENCH_OPTS='-Dvalueguard.bench.row-jvm-options="-XX:A=1 -XX:B=2"'
eval "bench_opts=(${BENCH_OPTS:-})"
# the packaged jar is what runs, as users run it
./mvnw -B -ntp -q package -DskipTests
if [ "${1:-}" = "memory" ]; then
  ./mvnw -B -ntp -Pbench test -Dtest=StoreBenchmark -Dsurefire.failIfNoSpecifiedTests=false \
    -Dvalueguard.bench.keys="${2:-1000000}" -Dvalueguard.bench.heap-mib="${3:-1024}" \
    -Dvalueguard.bench.block-cache-mib="${4:-256}" | grep -E '^\||keys,|Restart|Tests run|FAIL|ERROR'
  exit 0
fi
if [ "${1:-}" = "filters" ]; then
  ./mvnw -B -ntp -Pbench test -Dtest=FilterLayoutBenchmark -Dsurefire.failIfNoSpecifiedTests=false "${bench_opts[@]}" \
    -Dvalueguard.bench.entries="${2:-170000}" -Dvalueguard.bench.reads="${3:-1000000}" \
    | grep -E '^\||entries per store|Tests run|FAIL|ERROR'
  exit 0
fi
if [ "${1:-}" = "scale" ]; then
  ./mvnw -B -ntp -Pbench test -Dtest=ScaleBenchmark -Dsurefire.failIfNoSpecifiedTests=false "${bench_opts[@]}" \
    -Dvalueguard.bench.keyspaces="${2:-100000,1000000,10000000}" -Dvalueguard.bench.block-cache-mib="${3:-64}" \
    | grep -E '^\||^Preloaded|restored|Plot|plot|Tests run|FAIL|ERROR'
  exit 0
fi
if [ "${1:-}" = "retention" ]; then
  ./mvnw -B -ntp -Pbench test -Dtest=RetentionBenchmark -Dsurefire.failIfNoSpecifiedTests=false "${bench_opts[@]}" \
    -Dvalueguard.bench.claims="${2:-5000000}" -Dvalueguard.bench.retention="${3:-1000s}" \
    | grep -E '^\||^Churn|^GC from|Tests run|FAIL|ERROR'
  exit 0
fi
if [ "${1:-}" = "latency" ]; then
  ./mvnw -B -ntp -Pbench test -Dtest=LatencyBenchmark -Dsurefire.failIfNoSpecifiedTests=false "${bench_opts[@]}" \
    -Dvalueguard.bench.seconds="${2:-60}" -Dvalueguard.bench.rate="${3:-0}" \
    | grep -E '^\||partitions,|Where the time went|Commit latency|Seconds of load|load generator|collectors|Tests run|FAIL|ERROR'
  exit 0
fi
./mvnw -B -ntp -Pbench test -Dtest=ThroughputBenchmark -Dsurefire.failIfNoSpecifiedTests=false "${bench_opts[@]}" \
  -Dvalueguard.bench.claims="${1:-300000}" -Dvalueguard.bench.keys="${2:-100000}" \
  -Dvalueguard.bench.values="${3:-50000}" -Dvalueguard.bench.partitions="${4:-6}" \
  -Dvalueguard.bench.guarantee="${5:-exactly_once_v2}" | grep -E '^\||^Preloaded|claims,|median ratio|against the seed|Tests run|FAIL|ERROR'
