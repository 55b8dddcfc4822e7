#!/usr/bin/env bash
# Local Redis, Redis Cluster and PostgreSQL for WikiKV's tests and benchmarks.
#
#   scripts/services.sh start     install (when missing) and start everything; idempotent
#   scripts/services.sh stop      stop exactly the processes this script started (by PID file)
#   scripts/services.sh status    one line per service
#   scripts/services.sh env       print the export lines the test suite reads
#
# Everything binds 127.0.0.1, keeps its data under <repo>/.services/ (gitignored; PIDs in
# .services/redis.pid, .services/cluster-<port>.pid, .services/postgres.pid) and uses its own
# ports, so it never collides with a Redis or PostgreSQL that the Debian packages may have
# auto-started on the default ports; those system services are never touched.
#
#   Redis          127.0.0.1:6390   AOF on: appendonly yes, appendfsync everysec (see docs/backends.md)
#   Redis Cluster  127.0.0.1:7101-7106 (bus ports +10000): 3 primaries + 3 replicas, same AOF policy
#   PostgreSQL     127.0.0.1:5440   database wikikv, role wikikv/wikikv (scram) + ltree extension;
#                  unix socket in .services/pg/run; runs as the `postgres` user (initdb refuses root)
#
# Helpers used by tests (not for daily use):
#   scripts/services.sh cluster-start FIRST_PORT DIR [NODE_TIMEOUT_MS]   a throwaway 6-node cluster
#   scripts/services.sh cluster-stop DIR                                  stop it by its PID files
#
# Ports can be moved with WIKIKV_REDIS_PORT, WIKIKV_CLUSTER_PORT (first of six), WIKIKV_PG_PORT.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SVC="$ROOT/.services"
REDIS_PORT="${WIKIKV_REDIS_PORT:-6390}"
CLUSTER_PORT="${WIKIKV_CLUSTER_PORT:-7101}"
PG_PORT="${WIKIKV_PG_PORT:-5440}"
PG_DB=wikikv
PG_USER=wikikv
PG_PASSWORD=wikikv

log() { echo "services: $*" >&2; }
die() { log "error: $*"; exit 1; }

# ---------------------------------------------------------------------------------- install
pg_bindir() {
    local d
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [[ -x "$d/initdb" && -x "$d/postgres" ]]; then echo "$d"; return 0; fi
    done
    return 1
}

have_ltree() {
    local bindir sharedir
    bindir="$(pg_bindir)" || return 1
    sharedir="$("$bindir/pg_config" --sharedir 2>/dev/null)" || return 1
    [[ -f "$sharedir/extension/ltree.control" ]]
}

install_missing() {
    local pkgs=()
    command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 \
        || pkgs+=(redis-server redis-tools)
    pg_bindir >/dev/null || pkgs+=(postgresql)
    if ! have_ltree; then pkgs+=(postgresql-contrib); fi
    command -v runuser >/dev/null 2>&1 || pkgs+=(util-linux)
    # The web browser's end-to-end tests drive Debian's Chromium (Playwright's own download is
    # not reachable); a CJK font makes their screenshots of Chinese pages readable.
    [[ -x /usr/bin/chromium ]] || pkgs+=(chromium)
    [[ -e /usr/share/fonts/truetype/wqy/wqy-zenhei.ttc ]] || pkgs+=(fonts-wqy-zenhei)
    if ((${#pkgs[@]})); then
        [[ $(id -u) -eq 0 ]] || die "missing ${pkgs[*]}; run as root or install them"
        log "installing ${pkgs[*]}"
        # Keep the packages from starting their own services where policy-rc.d is honoured; if
        # they start anyway (default ports 6379/5432) we leave them alone.
        DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${pkgs[@]}" >/dev/null
    fi
    getent passwd postgres >/dev/null || die "the postgresql package did not create user postgres"
}

# ----------------------------------------------------------------------------------- helpers
running() {  # running PID -> 0 when the process exists and is not a zombie awaiting its reaper
    local state
    kill -0 "$1" 2>/dev/null || return 1
    state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)"
    [[ "$state" != "Z" ]]
}

alive() {  # alive PIDFILE -> 0 when the recorded process runs
    local pid
    [[ -f "$1" ]] || return 1
    pid="$(head -n1 "$1" 2>/dev/null | tr -dc 0-9)"
    [[ -n "$pid" ]] && running "$pid"
}

wait_for() {  # wait_for SECONDS DESCRIPTION CMD... : poll CMD every 0.1 s
    local deadline=$((SECONDS + $1)) what="$2"
    shift 2
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || die "timed out waiting for $what"
        sleep 0.1
    done
}

stop_pidfile() {  # stop_pidfile FILE SIGNAL: signal the recorded PID, wait for it, remove the file
    local file="$1" sig="$2" pid i
    [[ -f "$file" ]] || return 0
    pid="$(head -n1 "$file" | tr -dc 0-9)"
    if [[ -n "$pid" ]] && running "$pid"; then
        kill "-$sig" "$pid" 2>/dev/null || true
        for ((i = 0; i < 600; i++)); do running "$pid" || break; sleep 0.05; done
        if running "$pid"; then
            log "pid $pid did not exit on SIG$sig; sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$file"
}

redis_node() {  # redis_node PORT DIR [extra redis-server args...]: start one daemonized redis
    local port="$1" dir="$2"
    shift 2
    mkdir -p "$dir"
    if alive "$dir/redis.pid"; then return 0; fi
    rm -f "$dir/redis.pid"
    redis-server --port "$port" --bind 127.0.0.1 --protected-mode yes --dir "$dir" \
        --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
        --appendonly yes --appendfsync everysec --save "" "$@" 9>&-  # keep the lock fd from the daemon
    wait_for 10 "redis on $port" redis-cli -p "$port" ping
}

# ------------------------------------------------------------------------------------- redis
start_redis() {
    redis_node "$REDIS_PORT" "$SVC/redis"
    ln -sf "redis/redis.pid" "$SVC/redis.pid"
}

# ----------------------------------------------------------------------------------- cluster
cluster_ok() { redis-cli -p "$1" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; }

cluster_settled() {  # every node sees all slots ok, and every replica's link to its primary is up
    local first="$1" p repl
    for ((p = first; p < first + 6; p++)); do
        redis-cli -p "$p" cluster info 2>/dev/null | grep -q '^cluster_slots_ok:16384' || return 1
        cluster_ok "$p" || return 1
        repl="$(redis-cli -p "$p" info replication 2>/dev/null | tr -d '\r')"
        if grep -q '^role:slave' <<<"$repl"; then
            grep -q '^master_link_status:up' <<<"$repl" || return 1
            grep -q '^master_sync_in_progress:0' <<<"$repl" || return 1
        fi
    done
}

start_cluster() {  # start_cluster FIRST_PORT DIR [NODE_TIMEOUT_MS]
    local first="$1" dir="$2" timeout="${3:-2000}" p hosts=() known
    for ((p = first; p < first + 6; p++)); do
        redis_node "$p" "$dir/$p" --cluster-enabled yes --cluster-config-file nodes.conf \
            --cluster-node-timeout "$timeout" --cluster-replica-validity-factor 0
        hosts+=("127.0.0.1:$p")
    done
    known="$(redis-cli -p "$first" cluster info | tr -d '\r' | sed -n 's/^cluster_known_nodes://p')"
    if [[ "$known" == "1" ]]; then
        log "creating the cluster on ports $first-$((first + 5))"
        redis-cli --cluster create "${hosts[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1 \
            || { cat "$dir/create.log" >&2; die "redis-cli --cluster create failed"; }
    fi
    wait_for 60 "cluster_state:ok on $first-$((first + 5))" cluster_settled "$first"
}

stop_cluster() {  # stop_cluster DIR
    local d
    for d in "$1"/*/; do
        [[ -f "$d/redis.pid" ]] && stop_pidfile "$d/redis.pid" TERM
    done
    return 0
}

# -------------------------------------------------------------------------------- postgresql
as_postgres() {  # run a command as the postgres user, from / (the checkout may be private to root)
    (cd / && runuser -u postgres -- "$@")
}

pg_dir() {
    # The data dir must be reachable by the postgres user. A checkout under a private home (e.g.
    # /root, mode 700) is not, so then the data lives in /var/tmp and .services/pg links to it.
    local want="$SVC/pg"
    if mkdir -p "$SVC" && as_postgres test -x "$SVC" 2>/dev/null; then
        echo "$want"
    else
        local alt
        alt="/var/tmp/wikikv-services-$(echo -n "$ROOT" | md5sum | cut -c1-12)/pg"
        mkdir -p "$alt"
        [[ -L "$want" ]] || ln -sfn "$alt" "$want"
        echo "$alt"
    fi
}

pg_cli() {  # run a psql command as postgres over the unix socket
    local dir="$1"
    shift
    as_postgres "$(pg_bindir)/psql" -X -q -h "$dir/run" -p "$PG_PORT" -v ON_ERROR_STOP=1 "$@"
}

start_postgres() {
    local bindir dir
    bindir="$(pg_bindir)" || die "no PostgreSQL binaries"
    dir="$(pg_dir)"
    mkdir -p "$dir/run"
    chown postgres: "$dir" "$dir/run"
    chmod 700 "$dir"
    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
        log "initdb in $dir/data"
        rm -rf "$dir/data"
        as_postgres "$bindir/initdb" -D "$dir/data" -U postgres -A trust \
            --encoding UTF8 --locale C.UTF-8 >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
        # Local socket: trust (admin via runuser). Loopback TCP: password (scram) for everyone.
        cat >"$dir/data/pg_hba.conf" <<EOF
local   all   all                    trust
host    all   all   127.0.0.1/32     scram-sha-256
EOF
        chown postgres: "$dir/data/pg_hba.conf"
    fi
    if ! alive "$dir/data/postmaster.pid"; then
        rm -f "$dir/data/postmaster.pid"
        as_postgres "$bindir/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
            -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $dir/run -c fsync=on" start >/dev/null 9>&- \
            || { tail -n 20 "$dir/postgres.log" >&2; die "postgres did not start"; }
    fi
    head -n1 "$dir/data/postmaster.pid" >"$SVC/postgres.pid"
    wait_for 30 "postgres on $PG_PORT" as_postgres "$bindir/pg_isready" -q -h "$dir/run" -p "$PG_PORT"
    if [[ "$(pg_cli "$dir" -d postgres -tAc "SELECT 1 FROM pg_roles WHERE rolname='$PG_USER'")" != 1 ]]; then
        pg_cli "$dir" -d postgres -c "CREATE ROLE $PG_USER LOGIN PASSWORD '$PG_PASSWORD'"
    fi
    if [[ "$(pg_cli "$dir" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$PG_DB'")" != 1 ]]; then
        pg_cli "$dir" -d postgres -c "CREATE DATABASE $PG_DB OWNER $PG_USER"
    fi
    pg_cli "$dir" -d "$PG_DB" -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS ltree"
}

stop_postgres() {
    # SIGINT is PostgreSQL's "fast" shutdown: disconnect clients, checkpoint, exit.
    stop_pidfile "$SVC/postgres.pid" INT
}

# ------------------------------------------------------------------------------------ verbs
lock_services() {  # serialize concurrent start/stop (parallel test workers call start at once)
    mkdir -p "$SVC"
    exec 9>"$SVC/.lock"
    flock -w 600 9 || die "another services.sh holds $SVC/.lock"
}

cmd_start() {
    local t0=$SECONDS p
    lock_services
    install_missing
    start_redis
    start_cluster "$CLUSTER_PORT" "$SVC/cluster"
    for ((p = CLUSTER_PORT; p < CLUSTER_PORT + 6; p++)); do
        ln -sfn "cluster/$p/redis.pid" "$SVC/cluster-$p.pid"
    done
    start_postgres
    log "all services up in $((SECONDS - t0)) s"
}

cmd_stop() {
    lock_services
    stop_pidfile "$SVC/redis/redis.pid" TERM
    rm -f "$SVC/redis.pid"
    if [[ -d "$SVC/cluster" ]]; then stop_cluster "$SVC/cluster"; fi
    rm -f "$SVC"/cluster-*.pid
    stop_postgres
    log "stopped"
}

cmd_env() {
    echo "export WIKIKV_TEST_REDIS=redis://127.0.0.1:$REDIS_PORT/0"
    echo "export WIKIKV_TEST_CLUSTER=redis+cluster://127.0.0.1:$CLUSTER_PORT"
    echo "export WIKIKV_TEST_POSTGRES=postgresql://$PG_USER:$PG_PASSWORD@127.0.0.1:$PG_PORT/$PG_DB"
}

cmd_status() {
    local rc=0 p
    if alive "$SVC/redis/redis.pid"; then echo "redis      up   127.0.0.1:$REDIS_PORT pid $(cat "$SVC/redis/redis.pid")"
    else echo "redis      down"; rc=1; fi
    if cluster_settled "$CLUSTER_PORT" 2>/dev/null; then echo "cluster    up   127.0.0.1:$CLUSTER_PORT-$((CLUSTER_PORT + 5))"
    else echo "cluster    down"; rc=1; fi
    for ((p = CLUSTER_PORT; p < CLUSTER_PORT + 6; p++)); do
        alive "$SVC/cluster/$p/redis.pid" && echo "  node $p pid $(cat "$SVC/cluster/$p/redis.pid")" \
            || echo "  node $p down"
    done
    if alive "$SVC/postgres.pid"; then echo "postgres   up   127.0.0.1:$PG_PORT pid $(cat "$SVC/postgres.pid")"
    else echo "postgres   down"; rc=1; fi
    return $rc
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    env) cmd_env ;;
    status) cmd_status ;;
    cluster-start)
        [[ $# -ge 3 ]] || die "usage: $0 cluster-start FIRST_PORT DIR [NODE_TIMEOUT_MS]"
        install_missing
        start_cluster "$2" "$3" "${4:-2000}" ;;
    cluster-stop)
        [[ $# -ge 2 ]] || die "usage: $0 cluster-stop DIR"
        stop_cluster "$2" ;;
    *) echo "usage: $0 {start|stop|status|env}" >&2; exit 2 ;;
esac
