package dev.fencedlock.benchmarks.zookeeper;

import dev.fencedlock.benchmarks.Backends;
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
 * The anchor for fencedlock's zookeeper backend: Curator's {@link InterProcessMutex} acquired with
 * a 5 s wait and released, each thread on its own lock path, one Curator client shared by all.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class CuratorBenchmark {
    static final long WAIT_MILLIS = 5_000;

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

        boolean acquireRelease() throws Exception {
            if (!mutex.acquire(WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("uncontended " + path + " not granted within " + WAIT_MILLIS + " ms");
            }
            mutex.release();
            return true;
        }
    }

    @Benchmark
    @Threads(1)
    public boolean oneThread(Mutex mutex) throws Exception {
        return mutex.acquireRelease();
    }

    @Benchmark
    @Threads(8)
    public boolean eightThreads(Mutex mutex) throws Exception {
        return mutex.acquireRelease();
    }
}
