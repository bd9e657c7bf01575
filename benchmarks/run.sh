#!/usr/bin/env bash
# Runs the fencedlock benchmark suite beside its anchors (raw Jedis, Redisson, Curator, @Version):
# builds benchmarks.jar, starts 5 redis-server processes and a ZooKeeper server on free ports (and,
# when a selected benchmark needs them, a Sentinel group and Redis Clusters of 1, 2 and 3 masters),
# runs JMH in interleaved rounds (one fork of every benchmark per round), measures heap per lease,
# writes the ratio table, and stops every server it started by PID, also on failure or Ctrl-C.
#
#   benchmarks/run.sh                 # the full run (3 rounds), about an hour on 2 cores
#   benchmarks/run.sh --quick         # a smoke run: 1 round, short iterations, about 8 minutes
#   benchmarks/run.sh --select Handoff --select Curator --quick
#
# Needs: java 17+, redis-server, python3 (for the report); redis-cli for the Sentinel and Cluster
# benchmarks. PostgreSQL on 127.0.0.1:5432 (database
# test, trust auth) is used when reachable; otherwise the JPA benchmarks run on H2 only.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: benchmarks/run.sh [options]

  --quick                 smoke run: 1 round, 1 warmup x 1s, 2 iterations x 1s, 1000 leases
  --rounds N              interleaved rounds, each one JMH fork of every benchmark (default 3)
  --forks N               JMH forks per benchmark within a round (default 1)
  --warmup-iterations N   --warmup-time T (e.g. 2s)   --iterations N   --time T
                          JMH timing for every benchmark; by default each class's own
                          (locks: 5 x 4s warmup, 3 x 2s; JPA: 5 x 3s warmup, 3 x 3s)
  --select REGEX          JMH benchmark regex; repeatable (default: all)
  --param NAME=VALUES     JMH -p, e.g. impl=curator,redisson-rlock; repeatable
  --memory / --no-memory  heap-per-lease runs (default: on, off when --select is given)
  --memory-backends LIST  comma-separated (default local,redlock-1,redlock-5,zookeeper)
  --memory-count N        leases held in the heap run (default 10000)
  --out DIR               results directory (default benchmarks/results/<timestamp>)
  --postgres-url URL      (default jdbc:postgresql://127.0.0.1:5432/test)
  --postgres-user USER    (default postgres)
  --zookeeper-fsync       let ZooKeeper fsync its log (default off: a shared disk's fsync
                          would dominate both fencedlock's and Curator's numbers)
  --no-build              reuse benchmarks/target/benchmarks.jar
  --maven-arg ARG         extra argument for the Maven build; repeatable (e.g. -o)
  --list                  list the benchmarks and exit
  -h, --help              this text
EOF
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

# Timing left empty means each benchmark class's own @Warmup/@Measurement (longer for JPA).
rounds=3 forks=1 warmup_iterations="" warmup_time="" iterations="" time=""
memory="" memory_count=10000 build=1 list=0
memory_backends=(local redlock-1 redlock-5 zookeeper) zookeeper_fsync=no
out="" postgres_url="jdbc:postgresql://127.0.0.1:5432/test" postgres_user=postgres
selects=() params=() maven_args=()

while [ $# -gt 0 ]; do
  case "$1" in
    --quick) rounds=1 warmup_iterations=1 warmup_time=1s iterations=2 time=1s memory_count=1000 ;;
    --rounds) rounds="$2"; shift ;;
    --forks) forks="$2"; shift ;;
    --warmup-iterations) warmup_iterations="$2"; shift ;;
    --warmup-time) warmup_time="$2"; shift ;;
    --iterations) iterations="$2"; shift ;;
    --time) time="$2"; shift ;;
    --select) selects+=("$2"); shift ;;
    --param) params+=(-p "$2"); shift ;;
    --memory) memory=1 ;;
    --no-memory) memory=0 ;;
    --memory-count) memory_count="$2"; shift ;;
    --memory-backends) IFS=, read -r -a memory_backends <<<"$2"; shift ;;
    --out) out="$2"; shift ;;
    --postgres-url) postgres_url="$2"; shift ;;
    --postgres-user) postgres_user="$2"; shift ;;
    --zookeeper-fsync) zookeeper_fsync=yes ;;
    --no-build) build=0 ;;
    --maven-arg) maven_args+=("$2"); shift ;;
    --list) list=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$memory" ]; then
  if [ ${#selects[@]} -eq 0 ]; then memory=1; else memory=0; fi
fi

jar="$here/target/benchmarks.jar"
if [ "$build" -eq 1 ]; then
  echo "== building $jar"
  (cd "$root" && ./mvnw -B -q -Pbenchmarks-jar -pl benchmarks -am package -DskipTests "${maven_args[@]}")
fi
[ -f "$jar" ] || { echo "run.sh: $jar is missing; run without --no-build" >&2; exit 1; }

if [ "$list" -eq 1 ]; then
  exec java -jar "$jar" -l "${selects[@]}"
fi

command -v redis-server >/dev/null || { echo "run.sh: redis-server is not on the PATH" >&2; exit 1; }

if [ -z "$out" ]; then
  out="$here/results/$(date -u +%Y%m%dT%H%M%SZ)"
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
if compgen -G "$out/round-*.json" >/dev/null || [ -e "$out/extra.jsonl" ]; then
  echo "run.sh: $out already holds results; give --out an empty directory" >&2
  exit 2
fi
case "$out" in *" "*) echo "run.sh: --out must not contain spaces (JMH splits JVM options on them)" >&2; exit 2 ;; esac

work="$(mktemp -d "${TMPDIR:-/tmp}/fencedlock-bench.XXXXXX")"
pids=()          # servers, stopped at exit
current_job=""   # the JMH or heap run in progress, if any

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$current_job" ]; then
    pids=("$current_job" "${pids[@]}")
  fi
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs a command in the background, its output appended to $1 and shown, and waits for it. In the
# background so that a TERM or INT to this script runs the cleanup at once (bash defers traps
# while a foreground command runs), which then stops the command by PID like the servers.
run_logged() {
  local log="$1" status=0
  shift
  "$@" > >(tee -a "$log") 2>&1 &
  current_job=$!
  wait "$current_job" || status=$?
  current_job=""
  return "$status"
}

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

random_port() { echo $((20000 + RANDOM % 30000)); }

# Waits until $2 accepts connections, or fails if process $1 died or 30 s passed.
await_port() {
  local pid="$1" port="$2"
  for _ in $(seq 300); do
    listening "$port" && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# Starts one server on a free port and sets started_port. start_server redis [ARG...]: a
# redis-server with the run's options and ARGs after them; start_server sentinel [LINE...]: a
# Sentinel, LINEs written to its own config file (Sentinel rewrites it).
start_server() {
  local kind="$1" port dir pid
  shift
  for _ in $(seq 20); do
    port="$(random_port)"
    listening "$port" && continue
    dir="$work/$kind-$port"
    mkdir -p "$dir"
    if [ "$kind" = sentinel ]; then
      printf 'port %s\nbind 127.0.0.1\ndir %s\nlogfile %s\n' "$port" "$dir" "$dir/redis.log" >"$dir/sentinel.conf"
      printf '%s\n' "$@" >>"$dir/sentinel.conf"
      redis-server "$dir/sentinel.conf" --sentinel --daemonize no &
    else
      redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
        --logfile "$dir/redis.log" --daemonize no "$@" &
    fi
    pid=$!
    pids+=("$pid")
    if await_port "$pid" "$port"; then
      started_port="$port"
      return 0
    fi
    kill "$pid" 2>/dev/null || true  # lost the port to someone else; try another
    wait "$pid" 2>/dev/null || true
    unset 'pids[-1]'
  done
  echo "run.sh: could not start $kind on a free port" >&2
  return 1
}

start_redis() {
  start_server redis
  redis_ports+=("$started_port")
}

# Waits up to 30 s until the command succeeds; fails naming $1 otherwise.
await() {
  local what="$1"
  shift
  for _ in $(seq 300); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "run.sh: $what: not ready within 30 s" >&2
  return 1
}

cluster_ready() {  # port, masters
  local info
  info="$(redis-cli -p "$1" CLUSTER INFO)"
  [[ "$info" == *cluster_state:ok* && "$info" == *cluster_known_nodes:"$2"* ]]
}

# A Redis Cluster of $1 masters, no replicas, formed as the test kit's RedisCluster forms it (slots
# split evenly in order with CLUSTER ADDSLOTSRANGE, then CLUSTER MEET): `redis-cli --cluster
# create` refuses fewer than three masters, and the 1- and 2-shard clusters must be built the same
# way as the 3-shard one. Appends "masters=host:port,..." to cluster_seeds.
start_cluster() {
  local n="$1" i ports=() seeds=""
  for ((i = 0; i < n; i++)); do
    start_server redis --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
      --cluster-announce-ip 127.0.0.1
    ports+=("$started_port")
    seeds+="127.0.0.1:$started_port,"
  done
  for ((i = 0; i < n; i++)); do
    redis-cli -p "${ports[$i]}" CLUSTER ADDSLOTSRANGE $((16384 * i / n)) $((16384 * (i + 1) / n - 1)) >/dev/null
    if [ "$i" -gt 0 ]; then
      redis-cli -p "${ports[$i]}" CLUSTER MEET 127.0.0.1 "${ports[0]}" >/dev/null
    fi
  done
  for port in "${ports[@]}"; do
    await "cluster of $n masters (node $port)" cluster_ready "$port" "$n"
  done
  cluster_seeds+=("$n=${seeds%,}")
}

replica_synced() { redis-cli -p "$1" INFO replication | grep -q master_link_status:up; }

sentinel_field() {  # port, field of SENTINEL MASTER
  redis-cli -p "$1" SENTINEL MASTER "$sentinel_master" | awk -v f="$2" 'prev == f { print; exit } { prev = $0 }'
}

sentinel_ready() {
  [ "$(sentinel_field "$1" num-slaves)" = 1 ] && [ "$(sentinel_field "$1" num-other-sentinels)" = 2 ]
}

# One master, one replica and three Sentinels (quorum 2) watching them as $sentinel_master.
start_sentinel_group() {
  local master replica seeds="" port
  start_server redis
  master="$started_port"
  start_server redis --replicaof 127.0.0.1 "$master"
  replica="$started_port"
  await "replica $replica of $master in sync" replica_synced "$replica"
  for _ in 1 2 3; do
    start_server sentinel "sentinel monitor $sentinel_master 127.0.0.1 $master 2" \
      "sentinel down-after-milliseconds $sentinel_master 5000" "sentinel failover-timeout $sentinel_master 60000"
    seeds+="127.0.0.1:$started_port,"
  done
  sentinel_nodes="${seeds%,}"
  for port in ${sentinel_nodes//,/ }; do
    await "Sentinel ${port#*:} knows the replica and the other Sentinels" sentinel_ready "${port#*:}"
  done
  sentinel_data="master 127.0.0.1:$master, replica 127.0.0.1:$replica"
}

start_zookeeper() {
  local log="$work/zookeeper.log" pid
  java -Xmx512m -Dzookeeper.forceSync="$zookeeper_fsync" -cp "$jar" dev.fencedlock.benchmarks.ZooKeeperServer \
    >"$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 600); do
    zookeeper_connect="$(sed -n 's/^connect=//p' "$log")"
    if [ -n "$zookeeper_connect" ] && listening "${zookeeper_connect##*:}"; then
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "run.sh: could not start ZooKeeper:" >&2
  cat "$log" >&2
  return 1
}

redis_ports=()
redis_started=$SECONDS
for _ in 1 2 3 4 5; do start_redis; done
zookeeper_connect=""
start_zookeeper
# The Sentinel group and the clusters only when a selected benchmark uses them.
selected="$(java -jar "$jar" -l "${selects[@]}")"
sentinel_master=bench-master sentinel_nodes="" sentinel_data="" cluster_seeds=()
if grep -q 'RedisSentinelBenchmark' <<<"$selected"; then
  command -v redis-cli >/dev/null || { echo "run.sh: redis-cli is not on the PATH" >&2; exit 1; }
  start_sentinel_group
  echo "== sentinel: $sentinel_data, sentinels $sentinel_nodes"
fi
if grep -q 'RedisClusterBenchmark' <<<"$selected"; then
  command -v redis-cli >/dev/null || { echo "run.sh: redis-cli is not on the PATH" >&2; exit 1; }
  for masters in 1 2 3; do start_cluster "$masters"; done
  echo "== clusters (masters=seeds): ${cluster_seeds[*]}"
fi
if [ -n "$sentinel_nodes" ] || [ ${#cluster_seeds[@]} -gt 0 ]; then
  redis_started=$SECONDS  # the quarantine below counts from the newest server
fi
redis_nodes="$(printf '127.0.0.1:%s,' "${redis_ports[@]}")"
redis_nodes="${redis_nodes%,}"
echo "== redis-server x5: $redis_nodes"
echo "== zookeeper: $zookeeper_connect"

jmh_params=("${params[@]}")
pg_hostport="${postgres_url#jdbc:postgresql://}"
pg_hostport="${pg_hostport%%/*}"
if ! (exec 3<>"/dev/tcp/${pg_hostport%%:*}/${pg_hostport##*:}") 2>/dev/null; then
  echo "== PostgreSQL at $pg_hostport is not reachable: JPA benchmarks on H2 only"
  jmh_params+=(-p database=h2)
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo ' (dirty)')"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //') x $(nproc)"
  echo "memory: $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo 2>/dev/null)"
  echo "os: $(uname -sr)"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "redis: $(redis-server --version | head -1)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
  echo "rounds: $rounds, forks per round: $forks, timing: ${warmup_iterations:-class} x ${warmup_time:-class} warmup, ${iterations:-class} x ${time:-class} measurement"
  echo "select: ${selects[*]:-all} ${params[*]:-}"
  echo "zookeeper fsync: $zookeeper_fsync; redis: --save '' --appendonly no"
  [ -n "$sentinel_nodes" ] && echo "sentinel: $sentinel_data, sentinels $sentinel_nodes (quorum 2)"
  [ ${#cluster_seeds[@]} -gt 0 ] && echo "clusters, no replicas (masters=seeds): ${cluster_seeds[*]}"
  echo "uptime before: $(uptime)"
} >"$out/machine.txt"

# fencedlock's redlock keeps a node out of the quorum until it has been up for the restart
# quarantine (by default the lease time, 30s): fresh servers would otherwise fail or slow the first
# benchmark. Wait it out rather than configure it away, so every benchmark runs on defaults.
quarantine_left=$((32 - (SECONDS - redis_started)))
if [ "$quarantine_left" -gt 0 ]; then
  echo "== waiting ${quarantine_left}s until the new Redis servers are past fencedlock's restart quarantine"
  sleep "$quarantine_left"
fi

timing=()
[ -n "$warmup_iterations" ] && timing+=(-wi "$warmup_iterations")
[ -n "$warmup_time" ] && timing+=(-w "$warmup_time")
[ -n "$iterations" ] && timing+=(-i "$iterations")
[ -n "$time" ] && timing+=(-r "$time")

jvm_args="-Xms1g -Xmx1g -Dbench.redis=$redis_nodes -Dbench.zookeeper=$zookeeper_connect"
jvm_args+=" -Dbench.postgres.url=$postgres_url -Dbench.postgres.user=$postgres_user -Dbench.out=$out"
if [ -n "$sentinel_nodes" ]; then
  jvm_args+=" -Dbench.redis.sentinel.master=$sentinel_master -Dbench.redis.sentinel.nodes=$sentinel_nodes"
fi
for seeds in "${cluster_seeds[@]}"; do
  jvm_args+=" -Dbench.redis.cluster.${seeds%%=*}=${seeds#*=}"
done

for round in $(seq "$rounds"); do
  echo "== round $round of $rounds"
  run_logged "$out/round-$round.log" java -jar "$jar" "${selects[@]}" "${jmh_params[@]}" "${timing[@]}" \
    -f "$forks" -rf json -rff "$out/round-$round.json" -jvmArgsAppend "$jvm_args -Dbench.round=$round" \
    || echo "== round $round: JMH reported an error; see $out/round-$round.log"
  if [ "$memory" -eq 1 ]; then
    for backend in "${memory_backends[@]}"; do
      echo "== heap per lease: $backend, $memory_count leases (round $round)"
      run_logged "$out/memory.log" java -XX:+UseSerialGC -Xms1g -Xmx1g \
        -Dbench.redis="$redis_nodes" -Dbench.zookeeper="$zookeeper_connect" -Dbench.out="$out" \
        -Dbench.round="$round" -cp "$jar" dev.fencedlock.benchmarks.memory.MemoryFootprint \
        "$backend" "$memory_count" || echo "== heap run for $backend failed; see $out/memory.log"
    done
  fi
done
{
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
  echo "uptime after: $(uptime)"
} >>"$out/machine.txt"

if command -v python3 >/dev/null; then
  python3 "$here/report.py" "$out" | tee "$out/report.md"
else
  echo "== python3 not found: run benchmarks/report.py $out on a machine that has it"
fi
echo "== results in $out"
