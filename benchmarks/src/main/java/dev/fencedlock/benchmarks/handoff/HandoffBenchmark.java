package dev.fencedlock.benchmarks.handoff;

import dev.fencedlock.benchmarks.ExtraMetrics;
import dev.fencedlock.benchmarks.LatencySamples;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Control;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Contended handoff: eight threads on one lock; how long from one holder starting its release to
 * the next holder's grant.
 *
 * <p>How it is measured, and why:
 *
 * <ol>
 *   <li>A holder stamps {@code System.nanoTime()} into a shared volatile just before it releases.
 *       The next holder, right after its acquire returns, subtracts that stamp from its own. Both
 *       clocks are the same monotonic clock of one JVM, and mutual exclusion orders the stamp
 *       before the read.
 *   <li>After releasing, a holder steps back until some other thread has been granted. Without
 *       this, a releaser that retries at once usually wins its own lock back (none of the three
 *       libraries is fair), and the benchmark would time a local re-acquire instead of a handoff
 *       to a waiter. So at every release seven threads are waiting, which is the situation the
 *       p50/p99 describe.
 *   <li>Only grants inside JMH's measurement window are recorded (measurement iterations, between
 *       {@link Control#startMeasurement} and {@link Control#stopMeasurement}, when all eight
 *       threads are running), and the stamp is cleared at each iteration's start, so time spent
 *       between iterations never counts. Outside the window the step-back gives up, so the
 *       threads can drain.
 *   <li>Samples are kept whole ({@link LatencySamples}) and reported per fork to {@code
 *       extra.jsonl}; JMH's own score is handoffs per second.
 * </ol>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Threads(8)
public class HandoffBenchmark {
    private static final long STEP_BACK_PARK_NANOS = 20_000;

    private record Release(long nanos, int thread) {}

    @State(Scope.Benchmark)
    public static class Handoff {
        @Param({
            Contenders.FENCEDLOCK_REDLOCK,
            Contenders.FENCEDLOCK_ZOOKEEPER,
            Contenders.REDISSON_RLOCK,
            Contenders.CURATOR
        })
        public String impl;

        Contenders contenders;
        final LatencySamples samples = new LatencySamples();
        final AtomicLong grants = new AtomicLong();
        final AtomicLong unmeasured = new AtomicLong();
        volatile Release lastRelease;
        volatile boolean recording;

        @Setup(Level.Trial)
        public void open() throws InterruptedException {
            contenders = Contenders.open(impl);
        }

        @Setup(Level.Iteration)
        public void startIteration(IterationParams iteration) {
            lastRelease = null;
            recording = iteration.getType() == IterationType.MEASUREMENT;
        }

        @TearDown(Level.Trial)
        public void report(BenchmarkParams params) {
            try {
                if (samples.size() > 0) {
                    Map<String, Number> metrics = new LinkedHashMap<>();
                    metrics.put("handoffs", samples.size());
                    metrics.put("p50_us", micros(samples.percentile(50)));
                    metrics.put("p90_us", micros(samples.percentile(90)));
                    metrics.put("p99_us", micros(samples.percentile(99)));
                    metrics.put("max_us", micros(samples.percentile(100)));
                    metrics.put("unmeasured_grants", unmeasured.get());
                    ExtraMetrics.write(params.getBenchmark() + ":impl=" + impl, metrics);
                }
            } finally {
                contenders.close();
            }
        }

        void granted(long nanos, int thread, Control control) {
            grants.incrementAndGet();
            Release release = lastRelease;
            if (!recording || !control.startMeasurement || control.stopMeasurement || release == null) {
                return;
            }
            if (release.thread() == thread) {
                // only when a step-back gave up because the iteration was ending
                unmeasured.incrementAndGet();
            } else {
                samples.add(nanos - release.nanos());
            }
        }

        private static double micros(long nanos) {
            return nanos / 1_000.0;
        }
    }

    @State(Scope.Thread)
    public static class Contender {
        Contenders.Handle handle;
        int thread;

        @Setup(Level.Trial)
        public void setUp(Handoff handoff, ThreadParams params) {
            handle = handoff.contenders.newHandle();
            thread = params.getThreadIndex();
        }
    }

    @Benchmark
    public void handoff(Handoff handoff, Contender contender, Control control) throws InterruptedException {
        contender.handle.acquire();
        handoff.granted(System.nanoTime(), contender.thread, control);
        long grantsBefore = handoff.grants.get();
        handoff.lastRelease = new Release(System.nanoTime(), contender.thread);
        contender.handle.release();
        while (handoff.grants.get() == grantsBefore && !control.stopMeasurement) {
            LockSupport.parkNanos(STEP_BACK_PARK_NANOS);
        }
    }
}
