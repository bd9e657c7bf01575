#!/bin/bash
# Interleaved rounds: the base jar (main) and the candidate jar, each running the four 1-thread
# benchmarks with -prof gc in one JMH fork, against the same five redis-servers.
# usage: measure.sh OUTDIR ROUNDS
out="$1"; rounds="$2"
mkdir -p "$out"
nodes=$(cat /tmp/t6rl/nodes)
sel=('FencedRedlockBenchmark.(oneNode|fiveNodes)OneThread$' 'RedisFloorBenchmark.oneThread$' 'PipelinedRedlockBenchmark.fiveNodesOneThread$')
echo "uptime before: $(uptime)" >> "$out/machine.txt"
for round in $(seq "$rounds"); do
  for variant in main candidate; do
    jar=/tmp/t6rl/$variant.jar
    echo "== round $round $variant $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/machine.txt"
    java -jar "$jar" "${sel[@]}" -f 1 -prof gc -rf json -rff "$out/round-$round-$variant.json" \
      -jvmArgsAppend "-Xms1g -Xmx1g -Dbench.redis=$nodes -Dbench.out=$out -Dbench.round=$round" > "$out/round-$round-$variant.log" 2>&1
    for backend in redlock-1 redlock-5; do
      cycles=$([ $backend = redlock-1 ] && echo 20000 || echo 5000)
      java -Xms1g -Xmx1g -Dbench.redis=$nodes -cp "$jar:/tmp/t6rl/cpu" CpuPerCycle $backend $cycles 2>&1 | sed "s/^/$variant round $round: /" >> "$out/cpu-per-cycle.txt"
    done
  done
done
echo "uptime after: $(uptime)" >> "$out/machine.txt"
