package dev.fencedlock.benchmarks.zookeeper;

import dev.fencedlock.benchmarks.Backends;
import dev.fencedlock.benchmarks.SlowAcquires;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
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
 * The anchor for fencedlock's zookeeper backend: Curator's {@link InterProcessMutex} acquired and
 * released, each thread on its own lock path, one Curator client shared by all.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
// 20 s of warm-up: RedissonRedLock at 8 threads reaches its steady rate only after about 15 s
@Warmup(iterations = 5, time = 4)
@Measurement(iterations = 3, time = 2)
public class CuratorBenchmark {

    @State(Scope.Benchmark)
    public static class Client {
        CuratorFramework curator;

        @Setup(Level.Trial)
        public void open() throws InterruptedException {
            curator = Backends.curator();
        }

        @TearDown(Level.Trial)
        public void close() {
            curator.close();
        }
    }

    @State(Scope.Thread)
    public static class Mutex {
        InterProcessMutex mutex;
        String path;

        @Setup(Level.Trial)
        public void setUp(Client client, ThreadParams thread) {
            path = "/bench-curator/lock-" + thread.getThreadIndex();
            mutex = new InterProcessMutex(client.curator, path);
        }

        boolean acquireRelease(SlowAcquires slow) throws Exception {
            long start = System.nanoTime();
            if (!mutex.acquire(Backends.UNCONTENDED_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(
                        "uncontended " + path + " not granted within " + Backends.UNCONTENDED_WAIT);
            }
            slow.record(start);
            mutex.release();
            return true;
        }
    }

    @Benchmark
    @Threads(1)
    public boolean oneThread(Mutex mutex, SlowAcquires slow) throws Exception {
        return mutex.acquireRelease(slow);
    }

    @Benchmark
    @Threads(8)
    public boolean eightThreads(Mutex mutex, SlowAcquires slow) throws Exception {
        return mutex.acquireRelease(slow);
    }
}
