#!/usr/bin/env bash
# interleaved.sh OUT ROUNDS JAR_A NAME_A JAR_B NAME_B: the H2 JPA update benchmarks of two jars, one JMH fork
# each per round, both jars in every round (order alternating), class timing (5 x 3 s warm-up, 3 x 3 s measured).
set -euo pipefail
out="$1"; rounds="$2"; shift 2
jars=("$1" "$3"); names=("$2" "$4")
mkdir -p "$out"
{ echo "date: $(date -u +%FT%TZ)"; echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"; echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)"; echo "java: $(java -version 2>&1 | head -1)"; } > "$out/machine.txt"
for round in $(seq "$rounds"); do
  order=(0 1); [ $((round % 2)) -eq 0 ] && order=(1 0)
  for i in "${order[@]}"; do
    for bench in 'VersionedUpdateBenchmark' 'FencedUpdateBenchmark'; do
      JAVA_TOOL_OPTIONS=-Djmh.ignoreLock=true java -jar "${jars[$i]}" "$bench" -p database=h2 -f 1 \
        -jvmArgsAppend "-Xms1g -Xmx1g" -rf json -rff "$out/round-$round-${names[$i]}-$bench.json" \
        >> "$out/round-$round-${names[$i]}.log" 2>&1
    done
  done
  echo "round $round done $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.txt"
