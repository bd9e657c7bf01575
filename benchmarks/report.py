#!/usr/bin/env python3
"""Turns a benchmarks/run.sh results directory into the Markdown tables of docs/benchmarks.md.

    python3 benchmarks/report.py benchmarks/results/<timestamp>

Reads round-*.json (JMH results, one file per interleaved round) and extra.jsonl (handoff
percentiles and heap per lease, one line per fork). A benchmark's score is the median over all its
forks of the fork's mean ops/s; the spread is the lowest and highest fork. A ratio against an
anchor is computed within each round (both sides measured minutes apart under the same machine
load), and the median and range of those per-round ratios are reported.
"""

import glob
import json
import os
import re
import statistics
import sys
from collections import defaultdict

# (label, numerator, denominator, target, "min" = ratio must be at least target / "max" = at most;
# target None = no goal, the ratio is reported as measured).
# Names are "Class.method" plus ":param=value" for every JMH parameter of the benchmark, in name
# order, as short_name() spells them; results recorded before a parameter existed are matched
# through LEGACY_PARAMS. A row whose two sides the run did not both measure is listed under the
# table as not measured.
RATIOS = [
    # Redis anchors: Redisson on one server and over five, the raw SET NX floor, a pipelined Redlock.
    ("redlock N=1 vs Redisson RLock, 1 thread",
     "FencedRedlockBenchmark.oneNodeOneThread", "RedissonBenchmark.rlockOneThread", 1.0, "min"),
    ("redlock N=1 vs Redisson RLock, 8 threads",
     "FencedRedlockBenchmark.oneNodeEightThreads", "RedissonBenchmark.rlockEightThreads", 1.0, "min"),
    ("redlock N=1 vs Redisson RFencedLock, 1 thread",
     "FencedRedlockBenchmark.oneNodeOneThread", "RedissonBenchmark.fencedLockOneThread", 1.0, "min"),
    ("redlock N=5 vs raw SET NX floor, 1 thread",
     "FencedRedlockBenchmark.fiveNodesOneThread", "RedisFloorBenchmark.oneThread", 0.7, "min"),
    ("redlock N=5 vs RedissonRedLock, 1 thread",
     "FencedRedlockBenchmark.fiveNodesOneThread", "RedissonBenchmark.redLockOneThread", 4.0, "min"),
    ("redlock N=5 vs RedissonRedLock, 8 threads",
     "FencedRedlockBenchmark.fiveNodesEightThreads", "RedissonBenchmark.redLockEightThreads", 4.0, "min"),
    ("redlock N=5, token unread, vs floor, 1 thread",
     "FencedRedlockBenchmark.fiveNodesOneThreadTokenUnread", "RedisFloorBenchmark.oneThread", 0.7, "min"),
    ("redlock N=5, token unread, vs RedissonRedLock, 1 thread",
     "FencedRedlockBenchmark.fiveNodesOneThreadTokenUnread", "RedissonBenchmark.redLockOneThread", 4.0, "min"),
    ("redlock N=5, token unread, vs RedissonRedLock, 8 threads",
     "FencedRedlockBenchmark.fiveNodesEightThreadsTokenUnread", "RedissonBenchmark.redLockEightThreads", 4.0,
     "min"),
    ("redlock N=5 vs hand-written pipelined token-less Redlock, 1 thread",
     "FencedRedlockBenchmark.fiveNodesOneThread", "PipelinedRedlockBenchmark.fiveNodesOneThread", 0.9, "min"),
    # ZooKeeper anchor: Curator's InterProcessMutex on the same server.
    ("zookeeper vs Curator InterProcessMutex, 1 thread",
     "FencedZookeeperBenchmark.oneThread", "CuratorBenchmark.oneThread", 1.0, "min"),
    ("zookeeper vs Curator InterProcessMutex, 8 threads",
     "FencedZookeeperBenchmark.eightThreads", "CuratorBenchmark.eightThreads", 1.0, "min"),
]

# Redis as users run it. Cluster: one shared client, 8 threads on distinct names spread over the
# shards; all shards share the machine's cores. Sentinel: one master, one replica.
CLUSTER = "RedisClusterBenchmark.{}:impl={}:shards={}"
SENTINEL = "RedisSentinelBenchmark.{}:impl={}"
for _impl, _impl_label in (("fencedlock", "fencedlock"), ("redisson-rlock", "Redisson RLock")):
    for _shards in (2, 3):
        RATIOS.append((f"cluster, {_impl_label}, 8 threads: {_shards} shards vs 1 shard (same cores)",
                       CLUSTER.format("eightThreads", _impl, _shards), CLUSTER.format("eightThreads", _impl, 1),
                       None, "min"))
for _method, _threads in (("oneThread", "1 thread"), ("eightThreads", "8 threads")):
    RATIOS.append((f"Sentinel, fencedlock: WAIT cost, wait-replicas=1 vs 0, {_threads}",
                   SENTINEL.format(_method, "fencedlock"), SENTINEL.format(_method, "fencedlock-wait1"), None, "max"))
    RATIOS.append((f"Sentinel, Redisson RLock: replica sync cost, default (synced) vs unsynced, {_threads}",
                   SENTINEL.format(_method, "redisson-rlock-unsynced"), SENTINEL.format(_method, "redisson-rlock"),
                   None, "max"))
for _method, _threads in (("oneThread", "1 thread"), ("eightThreads", "8 threads")):
    RATIOS.append((f"Sentinel, fencedlock vs Redisson RLock, both defaults (Redisson synced), {_threads}",
                   SENTINEL.format(_method, "fencedlock"), SENTINEL.format(_method, "redisson-rlock"), 1.0, "min"))
    RATIOS.append((f"Sentinel, both acknowledged: fencedlock wait-replicas=1 vs Redisson RLock, {_threads}",
                   SENTINEL.format(_method, "fencedlock-wait1"), SENTINEL.format(_method, "redisson-rlock"), 1.0,
                   "min"))
    RATIOS.append((f"Sentinel, neither acknowledged: fencedlock vs Redisson RLock unsynced, {_threads}",
                   SENTINEL.format(_method, "fencedlock"), SENTINEL.format(_method, "redisson-rlock-unsynced"), 1.0,
                   "min"))
for _method, _threads, _shards in (("oneThread", "1 thread", 1), ("oneThread", "1 thread", 3),
                                   ("eightThreads", "8 threads", 1), ("eightThreads", "8 threads", 2),
                                   ("eightThreads", "8 threads", 3)):
    RATIOS.append((f"cluster of {_shards}, fencedlock vs Redisson RLock, {_threads}",
                   CLUSTER.format(_method, "fencedlock", _shards), CLUSTER.format(_method, "redisson-rlock", _shards),
                   1.0, "min"))
for _method, _standalone, _threads in (("oneThread", "oneNodeOneThread", "1 thread"),
                                       ("eightThreads", "oneNodeEightThreads", "8 threads")):
    RATIOS.append((f"fencedlock on Sentinel vs on one standalone node, {_threads}",
                   SENTINEL.format(_method, "fencedlock"), f"FencedRedlockBenchmark.{_standalone}", None, "min"))
    RATIOS.append((f"fencedlock on a 1-shard cluster vs on one standalone node, {_threads}",
                   CLUSTER.format(_method, "fencedlock", 1), f"FencedRedlockBenchmark.{_standalone}", None, "min"))

JDBC = "JdbcTransactionBenchmark.readModifyWrite:database={}:mode={}"
JPA_VERSIONED = "VersionedUpdateBenchmark.update:database={}"
JPA_FENCED = "FencedUpdateBenchmark.update:database={}:protectedTable={}"
DATABASES = {"postgresql": "PostgreSQL", "h2": "H2", "mariadb": "MariaDB"}
# A fenced transaction's cost is its anchor's throughput over its own (time per operation, fenced over
# unfenced). Every ratio the JDBC and JPA benchmarks can measure, with the goals: fenced vs unfenced
# JDBC on PostgreSQL <= 1.10x, fenced JPA vs @Version <= 1.15x on PostgreSQL and <= 1.25x on H2,
# protected table or not; the extra-round-trip floor and the other databases as measured.
JDBC_GOALS = {"postgresql": 1.10}
JPA_GOALS = {"postgresql": 1.15, "h2": 1.25}
for _db, _db_label in DATABASES.items():
    for _mode, _what, _goal in (("fenced", "fenced, unprotected table", JDBC_GOALS.get(_db)),
                                ("fenced-protected", "fenced, protected table", JDBC_GOALS.get(_db)),
                                ("round-trip", "floor: unfenced plus one select 1", None)):
        RATIOS.append((f"JDBC transaction cost vs unfenced, {_db_label}, {_what}",
                       JDBC.format(_db, "unfenced"), JDBC.format(_db, _mode), _goal, "max"))
for _db in ("postgresql", "h2"):
    for _protected in ("false", "true"):
        RATIOS.append((f"JPA transaction cost vs @Version, {DATABASES[_db]}, "
                       f"{'protected' if _protected == 'true' else 'unprotected'} table",
                       JPA_VERSIONED.format(_db), JPA_FENCED.format(_db, _protected), JPA_GOALS[_db], "max"))

# Parameters a benchmark gained after results were recorded, with the value those results were
# measured at, so that older results directories still fill their rows.
LEGACY_PARAMS = {
    "JdbcTransactionBenchmark.readModifyWrite": {"database": "postgresql"},
    "FencedUpdateBenchmark.update": {"protectedTable": "false"},
}

HANDOFF = "HandoffBenchmark.handoff:impl="
HANDOFF_TARGET = ("fencedlock-redlock-5", "p50_us", 5000.0)
MEMORY = "MemoryFootprint:backend="


def short_name(jmh_result):
    name = ".".join(jmh_result["benchmark"].split(".")[-2:])
    params = dict(LEGACY_PARAMS.get(name, {}))
    params.update(jmh_result.get("params") or {})
    return name + "".join(f":{k}={v}" for k, v in sorted(params.items()))


def round_of(path):
    match = re.search(r"round-(\d+)\.json$", path)
    return int(match.group(1)) if match else 0


def load_jmh(directory):
    """{name: {round: [per-fork mean score]}}, {name: (threads, unit)}"""
    scores = defaultdict(lambda: defaultdict(list))
    drifts = defaultdict(list)
    slow = defaultdict(float)
    info = {}
    for path in sorted(glob.glob(os.path.join(directory, "round-*.json"))):
        with open(path) as f:
            try:
                results = json.load(f)
            except json.JSONDecodeError:
                print(f"warning: {path} is not complete JSON (interrupted run?); skipped", file=sys.stderr)
                continue
        for result in results:
            name = short_name(result)
            metric = result["primaryMetric"]
            info[name] = (result.get("threads", 1), metric["scoreUnit"])
            for fork in metric.get("rawData") or [[metric["score"]]]:
                if fork:
                    scores[name][round_of(path)].append(statistics.fmean(fork))
                if len(fork) > 1 and fork[0] > 0:
                    drifts[name].append(fork[-1] / fork[0] - 1)
            slow_metric = (result.get("secondaryMetrics") or {}).get("slowAcquires")
            if slow_metric:
                slow[name] += sum(sum(fork) for fork in slow_metric.get("rawData") or [])
    return scores, info, drifts, slow


def short_extra_name(name):
    """Drops the package: dev.x.HandoffBenchmark.handoff:impl=a -> HandoffBenchmark.handoff:impl=a"""
    method, sep, params = name.partition(":")
    return ".".join(method.split(".")[-2:]) + sep + params


def load_extra(directory):
    """{name: {round: [metrics dict per fork]}}"""
    extra = defaultdict(lambda: defaultdict(list))
    path = os.path.join(directory, "extra.jsonl")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    record = json.loads(line)
                    extra[short_extra_name(record["benchmark"])][record.get("round", 1)].append(record)
    return extra


def all_values(by_round):
    return [v for values in by_round.values() for v in values]


def fmt(value, digits=3):
    if value is None:
        return "n/a"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}"


def spread(values):
    return f"{fmt(min(values))} – {fmt(max(values))}" if len(values) > 1 else "(one sample)"


def paired_ratios(scores, numerator, denominator):
    ratios = []
    for rnd in sorted(set(scores.get(numerator, {})) & set(scores.get(denominator, {}))):
        num = statistics.median(scores[numerator][rnd])
        den = statistics.median(scores[denominator][rnd])
        if den > 0:
            ratios.append(num / den)
    return ratios


def verdict(value, target, direction):
    ok = value >= target if direction == "min" else value <= target
    if ok:
        return "met"
    if direction == "min":
        return f"missed by {(target - value) / target:.0%}"
    return f"missed by {(value - target) / target:.0%}"


def main(directory):
    scores, info, drifts, slow = load_jmh(directory)
    extra = load_extra(directory)
    lines = []
    machine = os.path.join(directory, "machine.txt")
    if os.path.exists(machine):
        lines += ["## Machine and run", "", "```"]
        with open(machine) as f:
            lines += [line.rstrip("\n") for line in f]
        lines += ["```", ""]

    lines += ["## Targets", "",
              "Ratio = median over rounds of (candidate / anchor) within the round; range = lowest and highest "
              "round; per round = each round's ratio in round order. A cost row is the anchor's throughput over the candidate's (time per operation, "
              "candidate over anchor). Goal — = no goal, reported as measured.",
              "",
              "| target | ratio | range | per round | goal | verdict |",
              "|---|---:|---:|---:|---:|---|"]
    unmeasured = []
    for label, numerator, denominator, target, direction in RATIOS:
        ratios = paired_ratios(scores, numerator, denominator)
        if not ratios:
            unmeasured.append(label)
            continue
        value = statistics.median(ratios)
        ratio_range = f"{min(ratios):.2f}x – {max(ratios):.2f}x" if len(ratios) > 1 else "(one round)"
        if target is None:
            goal, result = "—", "measured"
        else:
            goal = ("≥ " if direction == "min" else "≤ ") + f"{target:g}x"
            result = verdict(value, target, direction)
        per_round = " / ".join(f"{r:.2f}" for r in ratios)
        lines.append(f"| {label} | {value:.2f}x | {ratio_range} | {per_round} | {goal} | {result} |")
    impl, metric, limit = HANDOFF_TARGET
    handoff = extra.get(HANDOFF + impl)
    if handoff:
        p50s = [r[metric] for r in all_values(handoff)]
        value = statistics.median(p50s)
        lines.append(f"| handoff p50, fencedlock redlock N=5 | {value / 1000:.2f} ms | "
                     f"{spread([p / 1000 for p in p50s])} | {' / '.join(f'{p / 1000:.2f}' for p in p50s)} | "
                     f"≤ {limit / 1000:g} ms | "
                     f"{verdict(value, limit, 'max')} |")
    else:
        unmeasured.append("handoff p50, fencedlock redlock N=5")
    lines.append("")
    if unmeasured:
        lines += ["Not measured in this run (one side or both missing):", ""]
        lines += [f"- {label}" for label in unmeasured]
        lines.append("")

    lines += ["## Throughput", "",
              "Median over forks of each fork's mean; range = slowest and fastest fork. Drift = last "
              "measurement iteration over the first, median over forks: a large positive drift means the "
              "benchmark was still warming up (or the machine got quieter) while being measured. Slow = "
              "acquisitions of an uncontended lock that took over 1 s, all measured iterations and forks "
              "together (a release that timed out left a stale grant to wait out).", "",
              "| benchmark | threads | ops/s (median) | range | forks | drift | slow |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for name in sorted(scores):
        values = all_values(scores[name])
        threads, unit = info[name]
        unit_note = "" if unit == "ops/s" else f" {unit}"
        drift = f"{statistics.median(drifts[name]):+.0%}" if drifts[name] else ""
        lines.append(f"| {name} | {threads} | {fmt(statistics.median(values))}{unit_note} | {spread(values)} | "
                     f"{len(values)} | {drift} | {fmt(slow[name]) if name in slow else ''} |")
    lines.append("")

    handoffs = sorted(k for k in extra if k.startswith(HANDOFF))
    if handoffs:
        lines += ["## Contended handoff (8 threads, one lock)", "",
                  "Time from a holder starting its release to the next holder's grant; median over forks, "
                  "range in brackets.", "",
                  "| implementation | p50 ms | p90 ms | p99 ms | max ms | handoffs per fork |",
                  "|---|---:|---:|---:|---:|---:|"]
        for key in handoffs:
            records = all_values(extra[key])

            def ms(metric_name):
                values = [r[metric_name] / 1000 for r in records]
                text = fmt(statistics.median(values))
                return text if len(values) == 1 else f"{text} [{fmt(min(values))} – {fmt(max(values))}]"

            counts = [r["handoffs"] for r in records]
            lines.append(f"| {key[len(HANDOFF):]} | {ms('p50_us')} | {ms('p90_us')} | {ms('p99_us')} | "
                         f"{ms('max_us')} | {fmt(statistics.median(counts))} |")
        lines.append("")

    memories = sorted(k for k in extra if k.startswith(MEMORY))
    if memories:
        lines += ["## Heap", "",
                  "Live heap after full GC (serial collector); median over rounds, range in brackets.", "",
                  "| backend | leases | bytes per idle FencedLock | bytes per held Lease |",
                  "|---|---:|---:|---:|"]
        for key in memories:
            records = all_values(extra[key])

            def med(metric_name):
                values = [r[metric_name] for r in records]
                text = fmt(statistics.median(values))
                return text if len(values) == 1 else f"{text} [{fmt(min(values))} – {fmt(max(values))}]"

            lines.append(f"| {key[len(MEMORY):]} | {records[0]['count']} | {med('bytes_per_idle_lock')} | "
                         f"{med('bytes_per_held_lease')} |")
        lines.append("")

    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1])
