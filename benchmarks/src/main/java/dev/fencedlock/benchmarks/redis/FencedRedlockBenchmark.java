package dev.fencedlock.benchmarks.redis;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.benchmarks.Backends;
import dev.fencedlock.benchmarks.SlowAcquires;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * fencedlock's redlock backend through the public API: {@code acquire(wait)} (auto-renewing, the
 * default lease time) then {@code close()}, each thread on its own lock name with one shared
 * client. Against {@link RedissonBenchmark}: {@code oneNode*} beside Redisson's RLock, {@code
 * fiveNodes*} beside RedissonRedLock, and beside {@link RedisFloorBenchmark}.
 *
 * <p>{@code fiveNodes*TokenUnread} never calls {@link Lease#token()}, so a provider that derives
 * the token lazily shows what that saves; the others read it, as a fenced write must.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
// 20 s of warm-up: RedissonRedLock at 8 threads reaches its steady rate only after about 15 s
@Warmup(iterations = 5, time = 4)
@Measurement(iterations = 3, time = 2)
public class FencedRedlockBenchmark {

    @State(Scope.Benchmark)
    public static class OneNodeClient {
        LockClient client;

        @Setup(Level.Trial)
        public void open() {
            client = Backends.fencedlock(Backends.REDLOCK_1);
        }

        @TearDown(Level.Trial)
        public void close() {
            client.close();
        }
    }

    @State(Scope.Benchmark)
    public static class FiveNodeClient {
        LockClient client;

        @Setup(Level.Trial)
        public void open() {
            client = Backends.fencedlock(Backends.REDLOCK_5);
        }

        @TearDown(Level.Trial)
        public void close() {
            client.close();
        }
    }

    @State(Scope.Thread)
    public static class OneNodeLock {
        FencedLock lock;

        @Setup(Level.Trial)
        public void setUp(OneNodeClient client, ThreadParams thread) {
            lock = client.client.lock("bench:fenced1:" + thread.getThreadIndex());
        }
    }

    @State(Scope.Thread)
    public static class FiveNodeLock {
        FencedLock lock;

        @Setup(Level.Trial)
        public void setUp(FiveNodeClient client, ThreadParams thread) {
            lock = client.client.lock("bench:fenced5:" + thread.getThreadIndex());
        }
    }

    static long acquireReadTokenRelease(FencedLock lock, SlowAcquires slow) throws InterruptedException {
        long start = System.nanoTime();
        try (Lease lease = lock.acquire(Backends.UNCONTENDED_WAIT)) {
            slow.record(start);
            return lease.token();
        }
    }

    static void acquireRelease(FencedLock lock, SlowAcquires slow, Blackhole blackhole) throws InterruptedException {
        long start = System.nanoTime();
        try (Lease lease = lock.acquire(Backends.UNCONTENDED_WAIT)) {
            slow.record(start);
            blackhole.consume(lease);
        }
    }

    @Benchmark
    @Threads(1)
    public long oneNodeOneThread(OneNodeLock lock, SlowAcquires slow) throws InterruptedException {
        return acquireReadTokenRelease(lock.lock, slow);
    }

    @Benchmark
    @Threads(8)
    public long oneNodeEightThreads(OneNodeLock lock, SlowAcquires slow) throws InterruptedException {
        return acquireReadTokenRelease(lock.lock, slow);
    }

    @Benchmark
    @Threads(1)
    public long fiveNodesOneThread(FiveNodeLock lock, SlowAcquires slow) throws InterruptedException {
        return acquireReadTokenRelease(lock.lock, slow);
    }

    @Benchmark
    @Threads(8)
    public long fiveNodesEightThreads(FiveNodeLock lock, SlowAcquires slow) throws InterruptedException {
        return acquireReadTokenRelease(lock.lock, slow);
    }

    @Benchmark
    @Threads(1)
    public void fiveNodesOneThreadTokenUnread(FiveNodeLock lock, SlowAcquires slow, Blackhole blackhole)
            throws InterruptedException {
        acquireRelease(lock.lock, slow, blackhole);
    }

    @Benchmark
    @Threads(8)
    public void fiveNodesEightThreadsTokenUnread(FiveNodeLock lock, SlowAcquires slow, Blackhole blackhole)
            throws InterruptedException {
        acquireRelease(lock.lock, slow, blackhole);
    }
}
