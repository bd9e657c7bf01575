package dev.fencedlock.benchmarks.redis;

import dev.fencedlock.benchmarks.Backends;
import dev.fencedlock.benchmarks.BenchEnv;
import dev.fencedlock.benchmarks.SlowAcquires;
import java.util.List;
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
import org.openjdk.jmh.infra.ThreadParams;
import org.redisson.RedissonRedLock;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * The Redisson anchors, used the way their documentation shows: {@code tryLock(wait)} without a
 * lease time, so the lock watchdog renews it (like fencedlock's auto-renewing {@code acquire}),
 * then {@code unlock()}. Each thread has its own lock name; one client per Redis server is shared
 * by all threads, as an application would share it.
 *
 * <ul>
 *   <li>{@code rlock*}: {@link RLock} on one Redis server, the anchor for fencedlock redlock with
 *       one node.
 *   <li>{@code redLock*}: {@link RedissonRedLock} over the same five servers fencedlock uses, the
 *       anchor for fencedlock redlock with five nodes. Redisson deprecates it in favour of RLock on
 *       a replicated deployment, but it is still the Redlock algorithm Redisson ships.
 *   <li>{@code fencedLock*}: {@link RFencedLock} on one Redis server, Redisson's lock with a fencing
 *       token: {@code tryLockAndGetToken(wait)} (watchdog-renewed), then {@code unlock()}; the
 *       anchor for fencedlock redlock with one node and its token read.
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
// 20 s of warm-up: RedissonRedLock at 8 threads reaches its steady rate only after about 15 s
@Warmup(iterations = 5, time = 4)
@Measurement(iterations = 3, time = 2)
public class RedissonBenchmark {

    @State(Scope.Benchmark)
    public static class Clients {
        List<RedissonClient> clients = List.of();

        /** Connects lazily: a benchmark on one server should not pay for five clients. */
        synchronized List<RedissonClient> first(int count) {
            if (clients.size() < count) {
                clients = BenchEnv.redisUris(count).stream()
                        .map(Backends::redisson)
                        .toList();
            }
            return clients.subList(0, count);
        }

        @TearDown(Level.Trial)
        public synchronized void shutdown() {
            clients.forEach(RedissonClient::shutdown);
        }
    }

    @State(Scope.Thread)
    public static class SingleNodeLock {
        RLock lock;

        @Setup(Level.Trial)
        public void setUp(Clients clients, ThreadParams thread) {
            lock = clients.first(1).get(0).getLock("bench:rlock:" + thread.getThreadIndex());
        }
    }

    @State(Scope.Thread)
    public static class FiveNodeLock {
        RLock lock;

        @Setup(Level.Trial)
        @SuppressWarnings("deprecation") // RedissonRedLock is the anchor on purpose; see the class doc
        public void setUp(Clients clients, ThreadParams thread) {
            String name = "bench:redlock:" + thread.getThreadIndex();
            lock = new RedissonRedLock(clients.first(5).stream()
                    .map(client -> client.getLock(name))
                    .toArray(RLock[]::new));
        }
    }

    @State(Scope.Thread)
    public static class FencedSingleNodeLock {
        RFencedLock lock;

        @Setup(Level.Trial)
        public void setUp(Clients clients, ThreadParams thread) {
            lock = clients.first(1).get(0).getFencedLock("bench:rfencedlock:" + thread.getThreadIndex());
        }
    }

    static long lockReadTokenAndUnlock(RFencedLock lock, SlowAcquires slow) throws InterruptedException {
        long start = System.nanoTime();
        Long token = lock.tryLockAndGetToken(Backends.UNCONTENDED_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (token == null) {
            throw new IllegalStateException(
                    "uncontended " + lock.getName() + " not granted within " + Backends.UNCONTENDED_WAIT);
        }
        slow.record(start);
        lock.unlock();
        return token;
    }

    static boolean lockAndUnlock(RLock lock, SlowAcquires slow) throws InterruptedException {
        long start = System.nanoTime();
        if (!lock.tryLock(Backends.UNCONTENDED_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(
                    "uncontended " + lock.getName() + " not granted within " + Backends.UNCONTENDED_WAIT);
        }
        slow.record(start);
        lock.unlock();
        return true;
    }

    @Benchmark
    @Threads(1)
    public boolean rlockOneThread(SingleNodeLock lock, SlowAcquires slow) throws InterruptedException {
        return lockAndUnlock(lock.lock, slow);
    }

    @Benchmark
    @Threads(8)
    public boolean rlockEightThreads(SingleNodeLock lock, SlowAcquires slow) throws InterruptedException {
        return lockAndUnlock(lock.lock, slow);
    }

    @Benchmark
    @Threads(1)
    public boolean redLockOneThread(FiveNodeLock lock, SlowAcquires slow) throws InterruptedException {
        return lockAndUnlock(lock.lock, slow);
    }

    @Benchmark
    @Threads(8)
    public boolean redLockEightThreads(FiveNodeLock lock, SlowAcquires slow) throws InterruptedException {
        return lockAndUnlock(lock.lock, slow);
    }

    @Benchmark
    @Threads(1)
    public long fencedLockOneThread(FencedSingleNodeLock lock, SlowAcquires slow) throws InterruptedException {
        return lockReadTokenAndUnlock(lock.lock, slow);
    }

    @Benchmark
    @Threads(8)
    public long fencedLockEightThreads(FencedSingleNodeLock lock, SlowAcquires slow) throws InterruptedException {
        return lockReadTokenAndUnlock(lock.lock, slow);
    }
}
