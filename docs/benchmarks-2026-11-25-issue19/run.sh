#!/bin/bash
J=${JAR:-benchmarks/target/benchmarks.jar}   # built at commit 36b9721: ./mvnw -B -q -Pbenchmarks-jar -pl benchmarks -am package -DskipTests
O=${OUT:-/tmp/run19}
mkdir -p "$O"
{ date -u; uptime; nproc; grep -m1 "model name" /proc/cpuinfo; free -g | sed -n 2p; java -version 2>&1 | head -1; } > $O/machine.txt
for r in 1 2 3 4; do
  echo "== round $r $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  java -jar $J 'jpa.fenced.FencedUpdateBenchmark' -p database=h2 -p protectedTable=true,false -f 1 -wi 5 -w 3s -i 5 -r 3s 2>&1 | grep -E "update +h2"
  java -jar $J 'jpa.VersionedUpdateBenchmark' -p database=h2 -f 1 -wi 5 -w 3s -i 5 -r 3s 2>&1 | grep -E "update +h2"
done > $O/h2-jpa.txt
for r in 1 2 3; do
  echo "== round $r $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  java -jar $J 'JdbcTransactionBenchmark' -p database=postgresql -f 1 -wi 5 -w 2s -i 5 -r 2s 2>&1 | grep -E "readModifyWrite +postgresql"
done > $O/pg-jdbc.txt
for r in 1 2 3; do
  echo "== round $r $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  java -jar $J 'jpa.fenced.FencedUpdateBenchmark' -p database=postgresql -p protectedTable=true -f 1 -wi 5 -w 2s -i 5 -r 2s 2>&1 | grep -E "update +postgresql"
  java -jar $J 'jpa.VersionedUpdateBenchmark' -p database=postgresql -f 1 -wi 5 -w 2s -i 5 -r 2s 2>&1 | grep -E "update +postgresql"
done > $O/pg-jpa.txt
for r in 1 2; do
  echo "== round $r $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  java -jar $J 'JdbcTransactionBenchmark' -p database=h2 -f 1 -wi 4 -w 2s -i 5 -r 2s 2>&1 | grep -E "readModifyWrite +h2"
done > $O/h2-jdbc.txt
echo "select 1;" > /tmp/s1.sql
pgbench -h 127.0.0.1 -U postgres -n -c1 -T10 -f /tmp/s1.sql -M prepared test 2>&1 | grep -E "latency|tps" > $O/pgbench.txt
{ date -u; uptime; } >> $O/machine.txt
echo done > $O/done
