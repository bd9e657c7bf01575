package dev.fencedlock.benchmarks.redis;

import dev.fencedlock.LockClient;
import dev.fencedlock.benchmarks.Backends;
import dev.fencedlock.benchmarks.BenchEnv;
import dev.fencedlock.benchmarks.SlowAcquires;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import redis.clients.jedis.Jedis;

/**
 * Lock rows outside JMH: plain threads, each on its own lock name, counting completed acquire and
 * release cycles over a fixed time after a warm-up, the chosen sides alternating in one JVM with
 * every side's client open for the whole run. Besides the rate it reports the CPU each cycle cost,
 * in this JVM (all threads) and in the five Redis servers ({@code INFO cpu}), which on a machine
 * whose cores the client and the servers share says what bounds the rate. It exists to compare
 * with the JMH benchmarks ({@code FencedRedlockBenchmark}, {@code RedissonBenchmark}, {@code
 * RedisFloorBenchmark}, {@code PipelinedRedlockBenchmark}), which run each side in a fork of its
 * own after a short warm-up: the same cycles, a different harness.
 *
 * <pre>
 * java -Dbench.redis=127.0.0.1:7001,... -cp benchmarks.jar \
 *     dev.fencedlock.benchmarks.redis.PlainThreadsHarness THREADS WARMUP_S MEASURE_S ROUNDS SIDE[,SIDE...]
 * </pre>
 *
 * <p>Sides: {@code fencedlock-5} (redlock over five nodes), {@code redisson-redlock} ({@code
 * RedissonRedLock} over the same five), {@code pipelined-5} (the token-less pipelined Redlock),
 * {@code fencedlock-1} (redlock on the first node), {@code floor} (raw {@code SET NX PX} and a
 * compare-and-delete on the first node). Prints one line per side and round. Not thread-safe; a
 * command-line tool.
 */
public final class PlainThreadsHarness {
    private PlainThreadsHarness() {}

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        Duration warmup = Duration.ofSeconds(Long.parseLong(args[1]));
        Duration measure = Duration.ofSeconds(Long.parseLong(args[2]));
        int rounds = Integer.parseInt(args[3]);
        List<String> sides = List.of(args[4].split(","));
        List<AutoCloseable> open = new ArrayList<>();
        try {
            Map<String, IntFunction<LockCycle>> cycles = new LinkedHashMap<>();
            for (String side : sides) {
                cycles.put(side, open(side, open));
            }
            for (int round = 1; round <= rounds; round++) {
                for (Map.Entry<String, IntFunction<LockCycle>> side : cycles.entrySet()) {
                    print(round, side.getKey(), threads, rate(threads, warmup, measure, side.getValue()));
                }
            }
        } finally {
            for (AutoCloseable closeable : open) {
                closeable.close();
            }
        }
    }

    private static IntFunction<LockCycle> open(String side, List<AutoCloseable> open) {
        switch (side) {
            case "fencedlock-5", "fencedlock-1" -> {
                LockClient client =
                        Backends.fencedlock(side.equals("fencedlock-5") ? Backends.REDLOCK_5 : Backends.REDLOCK_1);
                open.add(client);
                return thread -> LockCycle.of(client.lock("plain:" + side + ":" + thread));
            }
            case "redisson-redlock" -> {
                List<RedissonClient> clients =
                        BenchEnv.redisUris(5).stream().map(Backends::redisson).toList();
                open.add(() -> clients.forEach(RedissonClient::shutdown));
                return thread -> redLock(clients, "plain:redlock:" + thread);
            }
            case "floor" -> {
                return thread -> {
                    RedisFloorBenchmark.Connection connection = new RedisFloorBenchmark.Connection();
                    connection.connect(thread);
                    open.add(connection::close);
                    return slow -> connection.lockAndUnlock();
                };
            }
            case "pipelined-5" -> {
                return thread -> {
                    PipelinedRedlockBenchmark.Nodes nodes = new PipelinedRedlockBenchmark.Nodes();
                    nodes.connect(thread);
                    open.add(nodes::close);
                    return slow -> nodes.lockAndUnlock();
                };
            }
            default ->
                throw new IllegalArgumentException("unknown side '" + side
                        + "'; expected fencedlock-5, redisson-redlock, pipelined-5, fencedlock-1 or floor");
        }
    }

    @SuppressWarnings("deprecation") // the anchor on purpose, as in RedissonBenchmark
    private static LockCycle redLock(List<RedissonClient> clients, String name) {
        RLock lock = new RedissonRedLock(
                clients.stream().map(client -> client.getLock(name)).toArray(RLock[]::new));
        return LockCycle.of(lock);
    }

    /** Cycles per second over {@code measure}, after {@code warmup}, with {@code threads} threads. */
    private static double rate(int threads, Duration warmup, Duration measure, IntFunction<LockCycle> cycles)
            throws InterruptedException {
        LongAdder completed = new LongAdder();
        AtomicBoolean counting = new AtomicBoolean();
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch done = new CountDownLatch(threads);
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            LockCycle cycle = cycles.apply(i);
            Thread worker = new Thread(
                    () -> {
                        SlowAcquires slow = new SlowAcquires();
                        try {
                            while (running.get()) {
                                cycle.run(slow);
                                if (counting.get()) {
                                    completed.increment();
                                }
                            }
                        } catch (Throwable e) {
                            synchronized (failures) {
                                failures.add(e);
                            }
                        } finally {
                            done.countDown();
                        }
                    },
                    "plain-harness-" + i);
            workers.add(worker);
            worker.start();
        }
        Thread.sleep(warmup.toMillis());
        counting.set(true);
        long start = System.nanoTime();
        long jvmCpuBefore = jvmCpuNanos();
        long serverCpuBefore = serverCpuMicros();
        Thread.sleep(measure.toMillis());
        counting.set(false);
        long elapsed = System.nanoTime() - start;
        long jvmCpu = jvmCpuNanos() - jvmCpuBefore;
        long serverCpu = serverCpuMicros() - serverCpuBefore;
        long counted = Math.max(1, completed.sum());
        System.out.printf(
                Locale.ROOT,
                "  CPU per cycle: client JVM %.0f us, Redis servers (all five) %.0f us%n",
                jvmCpu / 1e3 / counted,
                (double) serverCpu / counted);
        running.set(false);
        done.await();
        if (!failures.isEmpty()) {
            throw new IllegalStateException("a harness thread failed", failures.get(0));
        }
        return completed.sum() * 1e9 / elapsed;
    }

    /** CPU time of this JVM, all threads (the process's, from the platform MXBean). */
    private static long jvmCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** CPU time of the five Redis servers, user and system, from {@code INFO cpu} (microseconds). */
    private static long serverCpuMicros() {
        long total = 0;
        for (String uri : BenchEnv.redisUris(5)) {
            String host = uri.substring(uri.indexOf("://") + 3);
            int colon = host.lastIndexOf(':');
            try (Jedis jedis = new Jedis(host.substring(0, colon), Integer.parseInt(host.substring(colon + 1)))) {
                String info = jedis.info("cpu");
                total += seconds(info, "used_cpu_sys:") + seconds(info, "used_cpu_user:");
            }
        }
        return total;
    }

    private static long seconds(String info, String field) {
        int at = info.indexOf(field) + field.length();
        int end = info.indexOf('\r', at);
        return Math.round(Double.parseDouble(
                        info.substring(at, end < 0 ? info.length() : end).trim())
                * 1e6);
    }

    private static void print(int round, String side, int threads, double rate) {
        System.out.printf(Locale.ROOT, "round %d: %s, %d threads: %.0f ops/s%n", round, side, threads, rate);
    }
}
