#!/usr/bin/env bash
# Runs the fencedlock benchmark suite beside its anchors (raw Jedis, Redisson, Curator, @Version):
# builds benchmarks.jar, starts 5 redis-server processes and a ZooKeeper server on free ports, runs
# JMH in interleaved rounds (one fork of every benchmark per round), measures heap per lease, writes
# the ratio table, and stops every server it started by PID, also on failure or Ctrl-C.
#
#   benchmarks/run.sh                 # the full run (3 rounds), about 25 minutes on 2 cores
#   benchmarks/run.sh --quick         # a smoke run: 1 round, short iterations, about 6 minutes
#   benchmarks/run.sh --select Handoff --select Curator --quick
#
# Needs: java 17+, redis-server, python3 (for the report). PostgreSQL on 127.0.0.1:5432 (database
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
                          (locks: 2 x 2s warmup, 3 x 2s; JPA: 5 x 3s warmup, 3 x 3s)
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

start_redis() {
  local port dir pid
  for _ in $(seq 20); do
    port="$(random_port)"
    listening "$port" && continue
    dir="$work/redis-$port"
    mkdir -p "$dir"
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
      --logfile "$dir/redis.log" --daemonize no &
    pid=$!
    pids+=("$pid")
    if await_port "$pid" "$port"; then
      redis_ports+=("$port")
      return 0
    fi
    kill "$pid" 2>/dev/null || true  # lost the port to someone else; try another
    wait "$pid" 2>/dev/null || true
    unset 'pids[-1]'
  done
  echo "run.sh: could not start redis-server" >&2
  return 1
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
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" >>"$out/machine.txt"

if command -v python3 >/dev/null; then
  python3 "$here/report.py" "$out" | tee "$out/report.md"
else
  echo "== python3 not found: run benchmarks/report.py $out on a machine that has it"
fi
echo "== results in $out"
