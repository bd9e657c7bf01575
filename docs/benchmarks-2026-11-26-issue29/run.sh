#!/usr/bin/env bash
# Issue 29: fencedlock and Redisson RLock on Redis Sentinel and Redis Cluster, the exact command of
# the recorded run (jmh/): 3 interleaved rounds, each one fork of every selected benchmark, class
# timing (2 x 2 s warm-up, 3 x 2 s measurement). benchmarks/run.sh starts the Sentinel group (one
# master, one replica, three Sentinels) and three clusters (1, 2 and 3 masters, no replicas) on free
# loopback ports because RedisSentinelBenchmark and RedisClusterBenchmark are selected, and stops
# them by PID at exit. FencedRedlockBenchmark.oneNode* and RedissonBenchmark.rlock* are the
# standalone references of the same run.
#
# jmh/ was produced at commit 26f9a8f with the jar built by
#   ./mvnw -B -q -Pbenchmarks-jar -pl benchmarks -am -DskipTests package
# and this command (--out /tmp/t6-issue29; round-N.log copied here as round-N.txt).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
exec "$root/benchmarks/run.sh" --no-build --rounds 3 \
  --select RedisSentinel --select RedisCluster \
  --select FencedRedlockBenchmark.oneNode --select RedissonBenchmark.rlock \
  "$@"
