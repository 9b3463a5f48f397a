#!/usr/bin/env bash
# The long fault suite: a real broker and three ValueGuard instances in processes of their own, a stream of random
# claims, and faults (SIGKILL and SIGSTOP of instances and of the broker, a minute-long broker outage) one after
# another; then the final state is checked against the reference model. Prints a table of what each fault cost and
# writes it to target/fault-suite/<time>/report.md. Then the rolling restart of a 3-broker cluster under load
# (RollingRestartIntegrationTests, tagged "long": too slow for every build).
#
#   scripts/fault-suite.sh [claims] [faults] [seed]     (defaults: 200000 claims, 30 faults, a random seed)
#
# ./mvnw verify runs a short version (35,000 claims, 5 faults: every kind once but the wiped restart) on every build,
# without the rolling restart and the crash test's latest-wins-with-retention scenario, which run here too.
set -euo pipefail
cd "$(dirname "$0")/.."
claims="${1:-200000}"
faults="${2:-30}"
seed_arg=()
if [ -n "${3:-}" ]; then
  seed_arg=("-Dvalueguard.faults.seed=$3")
fi
./mvnw -B -ntp verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test='FaultToleranceIntegrationTests,RollingRestartIntegrationTests,CrashRecoveryIntegrationTests#*WithRetention' \
  -Dvalueguard.it.excluded-groups=none \
  -Dvalueguard.faults.claims="$claims" -Dvalueguard.faults.count="$faults" "${seed_arg[@]}"
