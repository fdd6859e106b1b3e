#!/usr/bin/env bash
# A private MariaDB primary and one replica on 127.0.0.1 for the read-replica e2e (Debian's mariadbd,
# mariadb-install-db and the mariadb client), never the shared server on 3306:
#   scripts/mariadb-replica.sh start [base-port]   primary on base (binlog, server-id 1), replica on base+1 (server-id 2)
#                                                  replicating it; default base 3406; data under /tmp/adnet-mariadb-replica-<base>
#   scripts/mariadb-replica.sh stop  [base-port]
#   scripts/mariadb-replica.sh url primary|replica [base-port]   prints mysql://root@127.0.0.1:<port> (no database)
# Both run with --skip-grant-tables (root without a password, as the tests connect). `start` returns once the replica's
# threads run; a pair already replicating on those ports is left as it is.
set -euo pipefail

command="${1:-}"
if [ "$command" = "url" ]; then
  role="${2:-}"
  base="${3:-3406}"
else
  base="${2:-3406}"
fi
primary_port="$base"
replica_port="$((base + 1))"
dir="/tmp/adnet-mariadb-replica-${base}"

sql() { # port, statement
  mariadb --protocol=tcp -h127.0.0.1 -P"$1" -uroot --batch --skip-column-names -e "$2"
}

replicating() { # the replica's IO and SQL threads both run
  local status
  status="$(mariadb --protocol=tcp -h127.0.0.1 -P"$replica_port" -uroot -e 'SHOW SLAVE STATUS\G' 2>/dev/null)" || return 1
  grep -q 'Slave_IO_Running: Yes' <<<"$status" && grep -q 'Slave_SQL_Running: Yes' <<<"$status"
}

start_server() { # name, port, extra mariadbd arguments...
  local name="$1" port="$2"
  shift 2
  local args=(
    --no-defaults
    "--datadir=$dir/$name"
    "--port=$port"
    --bind-address=127.0.0.1
    "--socket=$dir/$name.sock"
    "--pid-file=$dir/$name.pid"
    "--log-error=$dir/$name.err"
    --skip-grant-tables
    --skip-name-resolve
    --innodb-buffer-pool-size=64M
    --innodb-log-file-size=16M
    --max-connections=300
    "$@"
  )
  if [ "$(id -u)" = "0" ]; then args+=(--user=root); fi
  setsid mariadbd "${args[@]}" </dev/null >/dev/null 2>&1 &
}

wait_up() { # name, port
  for _ in $(seq 1 300); do
    if sql "$2" 'SELECT 1' >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  echo "MariaDB $1 on port $2 did not come up" >&2
  tail -n 30 "$dir/$1.err" >&2 || true
  return 1
}

start() {
  if replicating && sql "$primary_port" 'SELECT 1' >/dev/null 2>&1; then
    echo "MariaDB primary ${primary_port} and replica ${replica_port} already up"
    return 0
  fi
  stop >/dev/null 2>&1 || true
  mkdir -p "$dir"
  local install=(--no-defaults "--datadir=$dir/primary" --auth-root-authentication-method=normal --skip-test-db)
  if [ "$(id -u)" = "0" ]; then install+=(--user=root); fi
  mariadb-install-db "${install[@]}" >"$dir/install.log" 2>&1 || {
    cat "$dir/install.log" >&2
    return 1
  }
  # the replica starts from the same empty system tables (copying them is quicker than a second install)
  cp -a "$dir/primary" "$dir/replica"
  start_server primary "$primary_port" --server-id=1 "--log-bin=$dir/primary/binlog" --binlog-format=ROW
  start_server replica "$replica_port" --server-id=2 "--relay-log=$dir/replica/relay" --skip-slave-start
  wait_up primary "$primary_port"
  wait_up replica "$replica_port"
  sql "$replica_port" "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primary_port}, MASTER_USER='root',
    MASTER_PASSWORD='', MASTER_CONNECT_RETRY=1, MASTER_USE_GTID=slave_pos; START SLAVE"
  for _ in $(seq 1 100); do
    if replicating; then
      echo "MariaDB primary on ${primary_port}, replica on ${replica_port} (replicating)"
      return 0
    fi
    sleep 0.1
  done
  echo "the replica on ${replica_port} does not replicate:" >&2
  mariadb --protocol=tcp -h127.0.0.1 -P"$replica_port" -uroot -e 'SHOW SLAVE STATUS\G' >&2 || true
  return 1
}

stop() {
  for name in replica primary; do
    if [ -f "$dir/$name.pid" ]; then
      local pid
      pid="$(cat "$dir/$name.pid")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$dir"
}

case "$command" in
  start) start ;;
  stop) stop ;;
  url)
    case "$role" in
      primary) echo "mysql://root@127.0.0.1:${primary_port}" ;;
      replica) echo "mysql://root@127.0.0.1:${replica_port}" ;;
      *)
        echo "usage: $0 url primary|replica [base-port]" >&2
        exit 2
        ;;
    esac
    ;;
  *)
    echo "usage: $0 start|stop [base-port] | url primary|replica [base-port]" >&2
    exit 2
    ;;
esac
