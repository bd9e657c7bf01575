package dev.fencedlock.benchmarks.zookeeper;

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
import org.openjdk.jmh.infra.ThreadParams;

/**
 * fencedlock's zookeeper backend through the public API, beside {@link CuratorBenchmark}:
 * {@code acquire(wait)}, read the token, {@code close()}; each thread on its own lock name, one client
 * shared by all.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
// 20 s of warm-up: RedissonRedLock at 8 threads reaches its steady rate only after about 15 s
@Warmup(iterations = 5, time = 4)
@Measurement(iterations = 3, time = 2)
public class FencedZookeeperBenchmark {

    @State(Scope.Benchmark)
    public static class Client {
        LockClient client;

        @Setup(Level.Trial)
        public void open() {
            client = Backends.fencedlock(Backends.ZOOKEEPER);
        }

        @TearDown(Level.Trial)
        public void close() {
            client.close();
        }
    }

    @State(Scope.Thread)
    public static class Lock {
        FencedLock lock;

        @Setup(Level.Trial)
        public void setUp(Client client, ThreadParams thread) {
            lock = client.client.lock("bench-lock-" + thread.getThreadIndex());
        }

        long acquireReadTokenRelease(SlowAcquires slow) throws InterruptedException {
            long start = System.nanoTime();
            try (Lease lease = lock.acquire(Backends.UNCONTENDED_WAIT)) {
                slow.record(start);
                return lease.token();
            }
        }
    }

    @Benchmark
    @Threads(1)
    public long oneThread(Lock lock, SlowAcquires slow) throws InterruptedException {
        return lock.acquireReadTokenRelease(slow);
    }

    @Benchmark
    @Threads(8)
    public long eightThreads(Lock lock, SlowAcquires slow) throws InterruptedException {
        return lock.acquireReadTokenRelease(slow);
    }
}
