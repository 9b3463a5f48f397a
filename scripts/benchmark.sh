#!/usr/bin/env bash
# Throughput of ValueGuard against the plain table a user would write without it, side by side in one run: starts a
# broker in a JVM of its own, preloads the claims topic, then runs the baseline and ValueGuard one after the other for
# each setting (defaults; metrics.recording.level=INFO; INFO and commit.interval.ms=1000) and prints claims/s and the
# ratio. The table is also written to target/benchmark/<time>/report.md.
#
#   scripts/benchmark.sh [claims] [keys] [values] [partitions] [guarantee]
#   (defaults: 300000 100000 50000 6 exactly_once_v2)
set -euo pipefail
cd "$(dirname "$0")/.."
# the packaged jar is what runs, as users run it
./mvnw -B -ntp -q package -DskipTests
./mvnw -B -ntp test -Dtest=ThroughputBenchmark -Dsurefire.failIfNoSpecifiedTests=false \
  -Dvalueguard.bench.claims="${1:-300000}" -Dvalueguard.bench.keys="${2:-100000}" \
  -Dvalueguard.bench.values="${3:-50000}" -Dvalueguard.bench.partitions="${4:-6}" \
  -Dvalueguard.bench.guarantee="${5:-exactly_once_v2}" | grep -E '^\||^Preloaded|claims,|Tests run|FAIL|ERROR'
