#!/usr/bin/env bash
# A rolling upgrade under load from an earlier build to this one (RollingUpgradeIntegrationTests): builds the jar of
# the given commit in a temporary worktree, then starts three instances of it beside one broker, rolls them one by one
# to this work tree's build, as `helm upgrade` rolls the StatefulSet, and checks the final state against the reference
# model. First it renders both builds' Helm charts (ChartUpgradeTests): the earlier chart's production values must
# render with this chart, and the StatefulSet fields Kubernetes refuses to change must match, or `helm upgrade` fails.
# README, "Upgrading", says from which builds a rolling upgrade is supported; run this before a release against the
# build it upgrades from.
#
#   scripts/upgrade-check.sh <commit, tag or branch of the earlier build> [both|upgrade|rollback]
#
# both (the default) rolls up and then, in a fleet of its own, back (what `helm rollback` does); about 7 minutes on
# 2 cores. POLICY=first-wins rolls a fleet of sign-ups, checked by what must hold under first-wins (no model computes
# its outcome from the claims topic alone). .ci/run checks the upgrade from the oldest build a rolling upgrade is supported from (.ci/upgrade-from).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/upgrade-check.sh <commit, tag or branch of the earlier build> [both|upgrade|rollback]"
from="${1:?$usage}"
case "${2:-both}" in
  both) tests=RollingUpgradeIntegrationTests ;;
  upgrade) tests='RollingUpgradeIntegrationTests#shouldRollFromAnEarlierBuildUnderLoad' ;;
  rollback) tests='RollingUpgradeIntegrationTests#shouldRollBackToTheEarlierBuildUnderLoad' ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
rev=$(git rev-parse --verify "${from}^{commit}")
work=$(mktemp -d)
cleanup() {
  git worktree remove --force "$work/source" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
git worktree add --detach "$work/source" "$rev" >/dev/null
echo "Building the earlier build, $(git log -1 --format='%h %ad %s' --date=short "$rev")"
(cd "$work/source" && ./mvnw -B -ntp -q package -DskipTests -Djacoco.skip=true)
cp "$work"/source/target/valueguard-*.jar "$work/earlier.jar"
./mvnw -B -ntp verify -Dtest=ChartUpgradeTests -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true \
  -Dvalueguard.upgrade.from-chart="$work/source/helm/valueguard" \
  -Dit.test="$tests" -Dvalueguard.upgrade.from-jar="$work/earlier.jar" \
  -Dvalueguard.upgrade.policy="${POLICY:-latest-wins}"
