#!/usr/bin/env bash
# A Redis Cluster of 3 masters and 3 replicas on 127.0.0.1 for the tests (Debian's redis-server and redis-cli):
#   scripts/redis-cluster.sh start [base-port]   ports base..base+5 (default 7000), data under /tmp/adnet-redis-cluster-<base>
#   scripts/redis-cluster.sh stop  [base-port]
#   scripts/redis-cluster.sh nodes [base-port]   prints the seed list for REDIS_CLUSTER_NODES
# `start` waits until every node reports cluster_state:ok; a cluster already up on those ports is left as it is.
set -euo pipefail

command="${1:-}"
base="${2:-7000}"
dir="/tmp/adnet-redis-cluster-${base}"
ports=()
for i in 0 1 2 3 4 5; do ports+=("$((base + i))"); done

nodes() {
  local seeds=()
  for port in "${ports[@]}"; do seeds+=("127.0.0.1:${port}"); done
  (IFS=,; echo "${seeds[*]}")
}

cluster_ok() { # every node answers and reports cluster_state:ok
  for port in "${ports[@]}"; do
    redis-cli -h 127.0.0.1 -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || return 1
  done
}

start() {
  if cluster_ok; then
    echo "Redis Cluster already up on ${ports[0]}-${ports[5]}"
    return 0
  fi
  stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  for port in "${ports[@]}"; do
    mkdir -p "$dir/$port"
    redis-server --port "$port" --bind 127.0.0.1 --dir "$dir/$port" --daemonize yes \
      --logfile "$dir/$port/redis.log" --pidfile "$dir/$port/redis.pid" \
      --cluster-enabled yes --cluster-config-file "$dir/$port/nodes.conf" --cluster-node-timeout 2000 \
      --save "" --appendonly no
  done
  for port in "${ports[@]}"; do
    for _ in $(seq 1 50); do
      redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1 && break
      sleep 0.1
    done
  done
  local addresses=()
  for port in "${ports[@]}"; do addresses+=("127.0.0.1:${port}"); done
  redis-cli --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log"
  for _ in $(seq 1 100); do
    if cluster_ok; then
      echo "Redis Cluster up on ${ports[0]}-${ports[5]} (3 masters, 3 replicas)"
      return 0
    fi
    sleep 0.2
  done
  echo "Redis Cluster on ${ports[0]}-${ports[5]} did not reach cluster_state:ok" >&2
  cat "$dir/create.log" >&2
  return 1
}

stop() {
  for port in "${ports[@]}"; do
    if [ -f "$dir/$port/redis.pid" ]; then
      redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || kill "$(cat "$dir/$port/redis.pid")" 2>/dev/null || true
    fi
  done
  rm -rf "$dir"
}

case "$command" in
  start) start ;;
  stop) stop ;;
  nodes) nodes ;;
  *)
    echo "usage: $0 start|stop|nodes [base-port]" >&2
    exit 2
    ;;
esac
