#!/usr/bin/env bash
# Archivist's distributed profile on one machine, as separate processes that share nothing on disk:
# the engines (PostgreSQL for the event log, nats-server for work queues, notifications and uploaded
# bytes, FerretDB for the read models, Milvus Lite for vectors) and the roles of
# scripts/cluster-topology.json (two API processes, two workers, one projector), each role with a
# DATA_DIR of its own under DIR.
#
#   bash scripts/cluster.sh up DIR            start everything, wait until it is ready, write DIR/cluster.env
#   bash scripts/cluster.sh down DIR          stop everything it started
#   bash scripts/cluster.sh start DIR NAME    start one process again (a role such as worker-1, or an engine)
#   bash scripts/cluster.sh stop DIR NAME [SIGNAL]   stop one (SIGTERM by default; SIGKILL for a crash)
#   bash scripts/cluster.sh status DIR        which processes run
#
# `source DIR/cluster.env` configures the `archivist` CLI for the cluster and gives API_URLS (the API
# processes' base URLs, space-separated) and API_KEY (the Retrieval API key). The caller's environment
# (SCRAPE_ALLOWED_HOSTS, model settings…) reaches every role. Needs: node (and `npm ci` done),
# nats-server, PostgreSQL 15 binaries, FerretDB and Milvus Lite — `.ci/provision` installs them.
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
pids="$dir/pids"
logs="$dir/logs"
launch="$dir/launch"

pg_bin=${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}
ferret_bin=${FERRETDB_BIN:-$HOME/go/bin/ferretdb}
ready_timeout=${CLUSTER_READY_TIMEOUT:-180}

say() { echo "cluster: $*" >&2; }
die() { say "$*"; exit 1; }

free_port() {
  node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })"
}
accepts() { # port [tries of 0.2 s]
  for _ in $(seq 1 "${2:-150}"); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.2; done
  return 1
}
alive() { [ -f "$pids/$1.pid" ] && kill -0 "$(cat "$pids/$1.pid")" 2>/dev/null; }
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
topology() { node -e "const t = require('$here/scripts/cluster-topology.json'); $1"; }

# Each process is started by a launch script written once by `up`, so `start NAME` brings back
# exactly the same process (same port, same data) after a crash or a kill.
write_launch() { # name, then the script body
  local name=$1
  shift
  printf '#!/usr/bin/env bash\n%s\n' "$*" >"$launch/$name.sh"
  chmod +x "$launch/$name.sh"
}

start_one() { # name
  local name=$1
  [ -x "$launch/$name.sh" ] || die "no process named $name in $dir"
  if alive "$name"; then say "$name runs already"; return 0; fi
  if [ "$name" = postgres ]; then
    # pg_ctl daemonizes the server; its pid is the first line of postmaster.pid.
    "$launch/$name.sh" >>"$logs/$name.log" 2>&1 || { tail -5 "$logs/$name.log" >&2; die "postgres did not start"; }
    head -1 "$dir/postgres/data/postmaster.pid" >"$pids/$name.pid"
    return 0
  fi
  nohup "$launch/$name.sh" >>"$logs/$name.log" 2>&1 &
  echo $! >"$pids/$name.pid"
}

stop_one() { # name [signal]
  local name=$1 signal=${2:-TERM}
  signal=${signal#SIG}
  [ -f "$pids/$name.pid" ] || return 0
  local pid
  pid=$(cat "$pids/$name.pid")
  if [ "$name" = postgres ] && [ "$signal" = TERM ]; then
    as_postgres "$pg_bin/pg_ctl" -D "$dir/postgres/data" -m fast -w stop >>"$logs/postgres.log" 2>&1
  else
    kill -s "$signal" "$pid" 2>/dev/null
  fi
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -s KILL "$pid" 2>/dev/null
  rm -f "$pids/$name.pid"
}


prepare_engines() {
  [ -x "$pg_bin/postgres" ] || die "no PostgreSQL 15 binaries in $pg_bin (apt-get install postgresql-15)"
  command -v nats-server >/dev/null || die "no nats-server on PATH (apt-get install nats-server)"
  [ -x "$ferret_bin" ] || die "no FerretDB at $ferret_bin (bash .ci/provision builds it)"
  milvus_bin=$(python3 -c 'import milvus_lite, os; print(os.path.join(os.path.dirname(milvus_lite.__file__), "lib", "milvus"))' 2>/dev/null)
  [ -x "$milvus_bin" ] || die "no Milvus Lite (pip install milvus-lite==2.5.1)"

  local port
  # PostgreSQL: old WAL deleted rather than recycled, so scrubbing purged streams leaves nothing.
  port=$(free_port)
  mkdir -p "$dir/postgres"
  if [ "$(id -u)" = 0 ]; then chmod 711 "$dir"; chown postgres "$dir/postgres"; fi
  as_postgres "$pg_bin/initdb" -D "$dir/postgres/data" -A trust -U archivist -E UTF8 --locale=C -N >"$logs/postgres.log" 2>&1 \
    || { tail -5 "$logs/postgres.log" >&2; die "initdb failed"; }
  local as=''
  [ "$(id -u)" = 0 ] && as='runuser -u postgres --'
  write_launch postgres "exec $as '$pg_bin/pg_ctl' -D '$dir/postgres/data' -l '$dir/postgres/server.log' -w -t 60 start -o \"-p $port -k '$dir/postgres' -c listen_addresses=127.0.0.1 -c max_connections=300 -c wal_recycle=off -c wal_keep_size=0 -c min_wal_size=32MB -c max_wal_size=64MB\""
  postgres_url="postgres://archivist@127.0.0.1:$port/postgres"

  port=$(free_port)
  mkdir -p "$dir/nats"
  write_launch nats "exec nats-server -a 127.0.0.1 -p $port -js -sd '$dir/nats'"
  nats_url="nats://127.0.0.1:$port"

  port=$(free_port)
  mkdir -p "$dir/ferretdb"
  write_launch mongodb "exec '$ferret_bin' --handler=sqlite --sqlite-url='file:$dir/ferretdb/' --listen-addr=127.0.0.1:$port --state-dir='$dir/ferretdb' --telemetry=disable --debug-addr=- --log-level=error"
  mongodb_url="mongodb://127.0.0.1:$port/"

  port=$(free_port)
  mkdir -p "$dir/milvus"
  write_launch milvus "cd '$dir/milvus' && LD_LIBRARY_PATH='$(dirname "$milvus_bin")' exec '$milvus_bin' '$dir/milvus/milvus.db' 127.0.0.1:$port ERROR"
  milvus_url="http://127.0.0.1:$port"
}

# What every role is given: the topology's settings, the engines' addresses, and the API key.
role_environment() {
  cat <<EOF
$(topology "for (const [k, v] of Object.entries(t.environment)) console.log('export ' + k + '=' + v)")
export POSTGRES_URL='$postgres_url'
export NATS_URL='$nats_url'
export MONGODB_URL='$mongodb_url'
export MONGODB_DATABASE=archivist
export MILVUS_URL='$milvus_url'
export API_KEYS='$api_key'
EOF
}

prepare_roles() {
  local role command replicas n name port metrics_port urls=''
  for role in $(topology "console.log(Object.keys(t.roles).join(' '))"); do
    command=$(topology "console.log(t.roles['$role'].command)")
    replicas=$(topology "console.log(t.roles['$role'].replicas)")
    for n in $(seq 1 "$replicas"); do
      name="$role-$n"
      mkdir -p "$dir/$name/data"
      port=0 metrics_port=0
      if [ "$role" = api ]; then
        port=$(free_port)
        urls="$urls http://127.0.0.1:$port"
      else
        # Workers and projectors serve their own /metrics (the API serves its own on PORT).
        metrics_port=$(free_port)
      fi
      # The caller's environment reaches the role, except an event store it does not use.
      write_launch "$name" "unset EVENTSTORE_URL
$(role_environment)
export DATA_DIR='$dir/$name/data' HOST=127.0.0.1 PORT=$port METRICS_PORT=$metrics_port LOG_LEVEL=\${LOG_LEVEL:-info}
cd '$here' && MALLOC_MMAP_THRESHOLD_=262144 exec node --v8-pool-size=0 dist/src/cli/main.js $command"
    done
  done
  api_urls=${urls# }
}

wait_ready() {
  local deadline=$((SECONDS + ready_timeout)) url
  for url in $api_urls; do
    until curl -sf -H "X-API-Key: $api_key" "$url/api/v1/health/ready" 2>/dev/null \
      | node -e "const r = JSON.parse(require('fs').readFileSync(0, 'utf8')); process.exit(r.ready && r.components.find((c) => c.name === 'workers')?.healthy ? 0 : 1)" 2>/dev/null; do
      for name in $(ls "$launch" | sed 's/\.sh$//'); do
        alive "$name" || { tail -20 "$logs/$name.log" >&2; die "$name exited while starting (log: $logs/$name.log)"; }
      done
      [ $SECONDS -lt $deadline ] || {
        curl -s "$url/api/v1/health/ready" >&2
        die "not ready within ${ready_timeout} s: $url"
      }
      sleep 0.5
    done
  done
}

case $command in
  up)
    [ -f "$dir/cluster.env" ] && die "$dir holds a cluster already (bash scripts/cluster.sh down $dir first)"
    mkdir -p "$pids" "$logs" "$launch"
    [ -f "$here/dist/src/cli/main.js" ] || (cd "$here" && npm run build >/dev/null) || die "could not build Archivist (npm ci first)"
    api_key=$(node -e "console.log(require('crypto').randomBytes(18).toString('base64url'))")
    prepare_engines
    for engine in $(topology "console.log(t.engines.join(' '))"); do start_one "$engine"; done
    for engine in postgres nats mongodb milvus; do
      port=$(grep -o -- '-p [0-9]*\|127.0.0.1:[0-9]*' "$launch/$engine.sh" | head -1 | grep -o '[0-9]*$')
      accepts "$port" || { tail -5 "$logs/$engine.log" >&2; die "$engine did not start"; }
    done
    prepare_roles
    for name in $(ls "$launch" | sed 's/\.sh$//'); do
      case $name in postgres | nats | mongodb | milvus) ;; *) start_one "$name" ;; esac
    done
    wait_ready
    {
      echo "# Archivist cluster in $dir: source this file to use the archivist CLI against it."
      role_environment | grep -v '^export API_KEYS='
      echo "export DATA_DIR='$dir/cli'"
      echo "export API_URLS='$api_urls'"
      echo "export API_KEY='$api_key'"
    } >"$dir/cluster.env"
    say "ready: $api_urls (source $dir/cluster.env)"
    ;;
  down)
    [ -d "$pids" ] || exit 0
    # Roles first, so that none of them logs its engines going away.
    for name in $(ls "$pids" | sed 's/\.pid$//'); do
      case $name in postgres | nats | mongodb | milvus) ;; *) stop_one "$name" & ;; esac
    done
    wait
    for name in milvus mongodb nats postgres; do stop_one "$name"; done
    rm -f "$dir/cluster.env"
    ;;
  start)
    [ -n "${3:-}" ] || die "start needs a process name (ls $launch)"
    start_one "$3"
    ;;
  stop)
    [ -n "${3:-}" ] || die "stop needs a process name (ls $pids)"
    stop_one "$3" "${4:-TERM}"
    ;;
  status)
    for script in "$launch"/*.sh; do
      name=$(basename "$script" .sh)
      if alive "$name"; then echo "$name running (pid $(cat "$pids/$name.pid"))"; else echo "$name stopped"; fi
    done
    ;;
  *)
    die "unknown command $command (up, down, start, stop, status)"
    ;;
esac
