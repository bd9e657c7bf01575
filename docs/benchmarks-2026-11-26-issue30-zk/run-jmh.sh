#!/usr/bin/env bash
# Issue 30, item 3: fencedlock's zookeeper backend beside Curator's InterProcessMutex, 1 and 8
# threads, distinct names, in interleaved rounds. Each round runs, one JMH fork each and in this
# order: Curator, fencedlock from the jar of this branch ("after"), fencedlock from the jar of its
# parent ("before"), all against one ZooKeeper server (fsync off, as benchmarks/run.sh runs it).
# JMH's gc profiler adds the bytes allocated per cycle, which the machine's load does not move.
#
#   run-jmh.sh AFTER_JAR BEFORE_JAR OUT_DIR [ROUNDS] [FIRST_ROUND]
#
# FIRST_ROUND (default 1) adds rounds to an earlier run's directory.
#
# The jars are benchmarks/target/benchmarks.jar built with
#   ./mvnw -B -q -Pbenchmarks-jar -pl benchmarks -am package -DskipTests
# at this branch and at its parent commit.
set -euo pipefail
after="$1" before="$2" out="$3" rounds="${4:-3}" first="${5:-1}"
mkdir -p "$out"
zk_pid=""
cleanup() { [ -n "$zk_pid" ] && kill "$zk_pid" 2>/dev/null || true; }
trap cleanup EXIT

java -Xmx512m -Dzookeeper.forceSync=no -cp "$after" dev.fencedlock.benchmarks.ZooKeeperServer >"$out/zookeeper-from-round-$first.log" 2>&1 &
zk_pid=$!
connect=""
for _ in $(seq 600); do
  connect="$(sed -n 's/^connect=//p' "$out/zookeeper-from-round-$first.log")"
  [ -n "$connect" ] && break
  sleep 0.1
done
[ -n "$connect" ] || { echo "ZooKeeper did not start" >&2; exit 1; }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') x $(nproc)"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "zookeeper: $connect (in-process TestingServer, forceSync=no)"
  echo "rounds: $rounds; JMH timing: the classes' own (2 x 2 s warmup, 3 x 2 s measurement), 1 fork per run"
} >>"$out/machine.txt"

jvm="-Xms1g -Xmx1g -Dbench.zookeeper=$connect -Dbench.out=$out"
run() { # name jar regex round
  java -Djmh.ignoreLock=true -jar "$2" "$3" -f 1 -prof gc -rf json -rff "$out/round-$4-$1.json" \
    -jvmArgsAppend "$jvm -Dbench.round=$4" >"$out/round-$4-$1.txt" 2>&1
}
for round in $(seq "$first" $((first + rounds - 1))); do
  echo "round $round load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/machine.txt"
  run curator "$after" 'zookeeper.CuratorBenchmark' "$round"
  run fenced-after "$after" 'zookeeper.FencedZookeeperBenchmark' "$round"
  run fenced-before "$before" 'zookeeper.FencedZookeeperBenchmark' "$round"
  echo "round $round load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/machine.txt"
done
