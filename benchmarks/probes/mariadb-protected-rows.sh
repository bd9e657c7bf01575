#!/usr/bin/env bash
# The per-row cost of MariaDB's protected-table trigger, JMH in interleaved rounds (one fork of each
# mode per round, alternating). ProtectedRowsBenchmark: one fenced transaction updates 500 rows in
# one statement, on a protected vs an unprotected table; score = microseconds per row.
# Needs benchmarks/target/benchmarks.jar (./mvnw -pl benchmarks -am package -DskipTests -Pbenchmarks-jar)
# and MariaDB on 127.0.0.1:3306 (root, no password; the database fencedlock_bench is created).
# Usage: benchmarks/probes/mariadb-protected-rows.sh OUT_DIR [rounds]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/../target/benchmarks.jar"
out="${1:?usage: mariadb-protected-rows.sh OUT_DIR [rounds]}"
rounds="${2:-3}"
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for mode in unprotected protected; do
    echo "== round $round mode $mode"
    java -jar "$jar" ProtectedRowsBenchmark -p mode="$mode" -f 1 -rf json -rff "$out/round-$round-$mode.json" 2>&1 \
      | grep -E "^(Benchmark|ProtectedRowsBenchmark)"
  done
done
