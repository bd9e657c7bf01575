package dev.fencedlock.benchmarks.redis;

import dev.fencedlock.benchmarks.Backends;
import dev.fencedlock.benchmarks.BenchEnv;
import dev.fencedlock.benchmarks.SlowAcquires;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Locks on a Redis Cluster of {@code shards} masters without replicas (three clusters, of 1, 2 and 3
 * masters, started by {@code benchmarks/run.sh}); one client shared by all threads, each thread on
 * its own lock name. Thread {@code i}'s name is chosen so that its hash slot lies on master {@code i
 * mod shards} (masters in the order of their slot ranges), so that 8 threads spread as evenly as
 * the shards allow (3 shards: 3, 3 and 2 threads): throughput over shards is then the cluster's
 * scaling, not the luck of 8 hashes. Both libraries hash the same slot for a name (fencedlock's
 * keys carry the name as their hash tag; Redisson's lock key is the name).
 *
 * <p>On one machine every shard shares its cores with the others and with the client, so the
 * ratio over shards says what spreading costs or gains here, not what more machines would give.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
// 20 s of warm-up: RedissonRedLock at 8 threads reaches its steady rate only after about 15 s
@Warmup(iterations = 5, time = 4)
@Measurement(iterations = 3, time = 2)
public class RedisClusterBenchmark {
    public static final String FENCEDLOCK = "fencedlock";
    public static final String REDISSON_RLOCK = "redisson-rlock";

    @State(Scope.Benchmark)
    public static class Cluster {
        @Param({FENCEDLOCK, REDISSON_RLOCK})
        public String impl;

        @Param({"1", "2", "3"})
        public int shards;

        TopologyClient client;
        /** Per slot, the index of the master that owns it, by the order of the masters' first slot. */
        int[] shardOfSlot;

        @Setup(Level.Trial)
        public void open() {
            shardOfSlot = shardOfSlot(BenchEnv.clusterNodes(shards).get(0), shards);
            switch (impl) {
                case FENCEDLOCK -> client = TopologyClient.of(Backends.fencedlockCluster(shards));
                case REDISSON_RLOCK -> client = TopologyClient.of(Backends.redissonCluster(shards));
                default -> throw new IllegalArgumentException("unknown impl '" + impl + "'");
            }
        }

        /** A lock name for {@code thread} whose slot is on master {@code thread mod shards}. */
        String nameFor(int thread) {
            int shard = thread % shards;
            for (int attempt = 0; ; attempt++) {
                String name = "bench:cluster:" + impl + ":" + thread + ":" + attempt;
                if (shardOfSlot[JedisClusterCRC16.getSlot(name)] == shard) {
                    return name;
                }
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            client.close();
        }
    }

    /**
     * Reads {@code CLUSTER SLOTS} from {@code seed} and numbers the masters by their lowest slot.
     *
     * @throws IllegalStateException if a slot is unowned or the cluster has not {@code shards} masters
     */
    static int[] shardOfSlot(String seed, int shards) {
        int colon = seed.lastIndexOf(':');
        List<long[]> ranges = new ArrayList<>(); // {first slot, last slot, master port}
        try (Jedis jedis = new Jedis(seed.substring(0, colon), Integer.parseInt(seed.substring(colon + 1)))) {
            for (Object entry : (List<?>) jedis.sendCommand(Protocol.Command.CLUSTER, "SLOTS")) {
                List<?> range = (List<?>) entry;
                List<?> master = (List<?>) range.get(2);
                ranges.add(new long[] {(Long) range.get(0), (Long) range.get(1), (Long) master.get(1)});
            }
        }
        ranges.sort((a, b) -> Long.compare(a[0], b[0]));
        List<Long> masters = new ArrayList<>();
        int[] shardOf = new int[16_384];
        Arrays.fill(shardOf, -1);
        for (long[] range : ranges) {
            if (!masters.contains(range[2])) {
                masters.add(range[2]);
            }
            for (long slot = range[0]; slot <= range[1]; slot++) {
                shardOf[(int) slot] = masters.indexOf(range[2]);
            }
        }
        if (masters.size() != shards || Arrays.stream(shardOf).anyMatch(s -> s < 0)) {
            throw new IllegalStateException("the cluster at " + seed + " has " + masters.size() + " masters in "
                    + ranges.size() + " slot ranges (expected " + shards + " masters owning every slot)");
        }
        return shardOf;
    }

    @State(Scope.Thread)
    public static class ThreadLock {
        LockCycle lock;

        @Setup(Level.Trial)
        public void setUp(Cluster cluster, ThreadParams thread) {
            lock = cluster.client.lock(cluster.nameFor(thread.getThreadIndex()));
        }
    }

    @Benchmark
    @Threads(1)
    public long oneThread(ThreadLock lock, SlowAcquires slow) throws InterruptedException {
        return lock.lock.run(slow);
    }

    @Benchmark
    @Threads(8)
    public long eightThreads(ThreadLock lock, SlowAcquires slow) throws InterruptedException {
        return lock.lock.run(slow);
    }
}
