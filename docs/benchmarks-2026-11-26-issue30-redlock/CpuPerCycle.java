import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.benchmarks.Backends;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import redis.clients.jedis.Jedis;
import java.net.URI;
import dev.fencedlock.benchmarks.BenchEnv;

/** Client CPU, process CPU, Redis CPU and bytes allocated per acquire + token read + close cycle, one thread. */
public class CpuPerCycle {
    public static void main(String[] args) throws Exception {
        String backend = args[0];
        int cycles = Integer.parseInt(args[1]);
        int nodes = backend.equals("redlock-5") ? 5 : 1;
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (LockClient client = Backends.fencedlock(backend)) {
            FencedLock lock = client.lock("bench:cpu:" + backend);
            long sink = 0;
            for (int i = 0; i < cycles; i++) sink += cycle(lock);
            for (int round = 0; round < 3; round++) {
                double redisBefore = redisCpu(nodes);
                long wall = System.nanoTime();
                long cpu = threads.getCurrentThreadCpuTime();
                long proc = os.getProcessCpuTime();
                long alloc = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
                java.util.Map<String, Long> before = perThread(threads);
                for (int i = 0; i < cycles; i++) sink += cycle(lock);
                long allocAfter = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
                long procAfter = os.getProcessCpuTime();
                long cpuAfter = threads.getCurrentThreadCpuTime();
                long wallAfter = System.nanoTime();
                double redisAfter = redisCpu(nodes);
                java.util.Map<String, Long> after = perThread(threads);
                if (round == 2) {
                    after.entrySet().stream()
                            .map(e -> java.util.Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
                            .filter(e -> e.getValue() > cycles * 500L)
                            .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                            .forEach(e -> System.out.printf("  round thread %-60s %.1f us/op%n", e.getKey(), e.getValue() / 1e3 / cycles));
                }
                System.out.printf("%s round %d: %.0f ops/s, caller thread CPU %.1f us/op, JVM process CPU %.1f us/op, redis CPU %.1f us/op (all nodes), caller allocated %d B/op%n",
                        backend, round + 1, cycles * 1e9 / (wallAfter - wall), (cpuAfter - cpu) / 1e3 / cycles, (procAfter - proc) / 1e3 / cycles,
                        (redisAfter - redisBefore) * 1e6 / cycles, (allocAfter - alloc) / cycles);
            }
            if (sink == 42) System.out.println();
        }
    }

    static java.util.Map<String, Long> perThread(java.lang.management.ThreadMXBean threads) {
        java.util.Map<String, Long> cpu = new java.util.HashMap<>();
        for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null) cpu.merge(info.getThreadName().replaceAll("[0-9]+$", "#").replaceAll("127.0.0.1:[0-9]+", "node"), Math.max(0, threads.getThreadCpuTime(info.getThreadId())), Long::sum);
        }
        return cpu;
    }

    static long cycle(FencedLock lock) throws InterruptedException {
        try (Lease lease = lock.acquire(Duration.ofSeconds(45))) {
            return lease.token();
        }
    }

    static double redisCpu(int nodes) {
        double total = 0;
        for (String uri : BenchEnv.redisUris(nodes)) {
            try (Jedis jedis = new Jedis(URI.create(uri))) {
                for (String line : jedis.info("cpu").split("\r\n")) {
                    if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                        total += Double.parseDouble(line.substring(line.indexOf(':') + 1));
                    }
                }
            }
        }
        return total;
    }
}
