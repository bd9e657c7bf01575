package dev.fencedlock.benchmarks.redis;

import dev.fencedlock.benchmarks.Backends;
import dev.fencedlock.benchmarks.SlowAcquires;
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

/**
 * Locks on a Redis watched by Sentinel (one master, one replica, three Sentinels, started by {@code
 * benchmarks/run.sh}), found through the Sentinels by both libraries; each thread on its own lock
 * name, one client shared by all threads.
 *
 * <ul>
 *   <li>{@code impl=fencedlock}: {@code fencedlock.redlock.sentinel.*} with the default {@code
 *       wait-replicas=0}; {@code fencedlock-wait1}: each grant acknowledged by the replica ({@code
 *       WAIT 1 <timeout>} after the acquire script; releases are not acknowledged). Their ratio is
 *       the cost of the acknowledgement.
 *   <li>{@code impl=redisson-rlock}: Redisson's {@code RLock} on {@code useSentinelServers} with its
 *       defaults, which wait for the replicas after each lock and each unlock ({@code
 *       checkLockSyncedSlaves=true}); {@code redisson-rlock-unsynced}: the same with that turned off.
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
// 20 s of warm-up: RedissonRedLock at 8 threads reaches its steady rate only after about 15 s
@Warmup(iterations = 5, time = 4)
@Measurement(iterations = 3, time = 2)
public class RedisSentinelBenchmark {
    public static final String FENCEDLOCK = "fencedlock";
    public static final String FENCEDLOCK_WAIT1 = "fencedlock-wait1";
    public static final String REDISSON_RLOCK = "redisson-rlock";
    public static final String REDISSON_RLOCK_UNSYNCED = "redisson-rlock-unsynced";

    @State(Scope.Benchmark)
    public static class Group {
        @Param({FENCEDLOCK, FENCEDLOCK_WAIT1, REDISSON_RLOCK, REDISSON_RLOCK_UNSYNCED})
        public String impl;

        TopologyClient client;

        @Setup(Level.Trial)
        public void open() {
            switch (impl) {
                case FENCEDLOCK -> client = TopologyClient.of(Backends.fencedlockSentinel(0));
                case FENCEDLOCK_WAIT1 -> client = TopologyClient.of(Backends.fencedlockSentinel(1));
                case REDISSON_RLOCK -> client = TopologyClient.of(Backends.redissonSentinel(true));
                case REDISSON_RLOCK_UNSYNCED -> client = TopologyClient.of(Backends.redissonSentinel(false));
                default -> throw new IllegalArgumentException("unknown impl '" + impl + "'");
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            client.close();
        }
    }

    @State(Scope.Thread)
    public static class ThreadLock {
        LockCycle lock;

        @Setup(Level.Trial)
        public void setUp(Group group, ThreadParams thread) {
            lock = group.client.lock("bench:sentinel:" + group.impl + ":" + thread.getThreadIndex());
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
