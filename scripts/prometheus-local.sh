#!/usr/bin/env bash
# Runs a local Prometheus (Debian package `prometheus`) that scrapes a ValueGuard instance on this machine and
# evaluates ValueGuard's alert rules. Usage: scripts/prometheus-local.sh [app-port] [prometheus-port]
set -euo pipefail
app_port="${1:-8080}"
prometheus_port="${2:-9090}"
here="$(cd "$(dirname "$0")/.." && pwd)"
command -v prometheus >/dev/null || { echo "prometheus is not installed: sudo apt-get install prometheus" >&2; exit 1; }

work="$(mktemp -d -t valueguard-prometheus.XXXXXX)"
trap 'rm -rf "$work"' EXIT
cat > "$work/prometheus.yml" <<YAML
global:
  scrape_interval: 5s
  evaluation_interval: 15s
rule_files:
  - $here/helm/valueguard/rules/valueguard-alerts.yaml
scrape_configs:
  - job_name: valueguard
    metrics_path: /actuator/prometheus
    static_configs:
      - targets: ["127.0.0.1:$app_port"]
YAML
echo "Prometheus on http://127.0.0.1:$prometheus_port, scraping 127.0.0.1:$app_port (Ctrl-C to stop)"
exec prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
  --web.listen-address="127.0.0.1:$prometheus_port"
