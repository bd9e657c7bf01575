package dev.fencedlock.benchmarks.memory;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.benchmarks.Backends;
import dev.fencedlock.benchmarks.ExtraMetrics;
import dev.fencedlock.redlock.RedlockSettings;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Heap per idle {@link FencedLock} and per held {@link Lease}: live heap after a full GC with no
 * locks, with {@code count} lock objects, and with all of them held. Run in its own JVM per
 * backend by {@code run.sh} (serial GC, so "used after GC" is exact live data):
 *
 * <pre>java -XX:+UseSerialGC -cp benchmarks.jar dev.fencedlock.benchmarks.memory.MemoryFootprint redlock-5 10000</pre>
 *
 * <p>Leases are auto-renewing, as {@code acquire(wait)} gives them, with a lease time equal to the
 * restart quarantine (redlock refuses leases longer than a configured quarantine), so renewals
 * run every 10 s; the renewal bookkeeping each lease carries is counted. Lock names are created before the baseline, so their strings are not.
 */
public final class MemoryFootprint {
    private static final Duration QUARANTINE = Duration.ofSeconds(30);
    private static final Duration LEASE_TIME = QUARANTINE;
    private static final int WARM_UP_CYCLES = 200;
    private static final int MAX_GC_ROUNDS = 8;

    private MemoryFootprint() {}

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: MemoryFootprint <local|redlock-1|redlock-5|zookeeper> <count>");
            System.exit(2);
        }
        String backend = args[0];
        int count = Integer.parseInt(args[1]);
        if (count <= 0) {
            throw new IllegalArgumentException("count must be positive, got " + count);
        }
        Map<String, Number> metrics = measure(backend, count);
        ExtraMetrics.write("MemoryFootprint:backend=" + backend, metrics);
        // Client libraries (Curator, Jedis pools) may leave non-daemon threads behind.
        System.exit(0);
    }

    static Map<String, Number> measure(String backend, int count) throws InterruptedException {
        String[] names = new String[count];
        for (int i = 0; i < count; i++) {
            names[i] = "bench-mem-" + i;
        }
        FencedLock[] locks = new FencedLock[count];
        Lease[] leases = new Lease[count];
        // The long lease would make redlock's restart quarantine (default: the lease time) 10 minutes
        // too; keep it at the default lease time's 30 s, which run.sh waits out after starting Redis.
        LockConfig.Builder config =
                LockConfig.builder().leaseTime(LEASE_TIME).set(RedlockSettings.RESTART_QUARANTINE, QUARANTINE);
        try (LockClient client = Backends.fencedlock(backend, config)) {
            warmUp(client);
            liveHeap(); // the first reading initialises the management beans it uses; keep that out
            long baseline = liveHeap();
            for (int i = 0; i < count; i++) {
                locks[i] = client.lock(names[i]);
            }
            long idle = liveHeap();
            for (int i = 0; i < count; i++) {
                leases[i] = locks[i].acquire(Duration.ofSeconds(5));
            }
            long held = liveHeap();
            for (Lease lease : leases) {
                if (!lease.isValid()) {
                    throw new IllegalStateException("lease on " + lease.lockName() + " was lost while measuring");
                }
            }
            Map<String, Number> metrics = new LinkedHashMap<>();
            metrics.put("count", count);
            metrics.put("bytes_per_idle_lock", (double) (idle - baseline) / count);
            metrics.put("bytes_per_held_lease", (double) (held - idle) / count);
            metrics.put("baseline_bytes", baseline);
            for (Lease lease : leases) {
                lease.close();
            }
            return metrics;
        }
    }

    /** Loads classes and opens connections and thread pools before the baseline is taken. */
    private static void warmUp(LockClient client) throws InterruptedException {
        FencedLock lock = client.lock("bench-mem-warm-up");
        for (int i = 0; i < WARM_UP_CYCLES; i++) {
            lock.acquire(Duration.ofSeconds(5)).close();
        }
    }

    /** Heap in use after full collections, repeated until two readings agree within 0.5%. */
    private static long liveHeap() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long previous = Long.MAX_VALUE;
        for (int round = 0; round < MAX_GC_ROUNDS; round++) {
            System.gc();
            // give reference processing and finalizers a moment before reading
            Thread.sleep(50);
            long used = memory.getHeapMemoryUsage().getUsed();
            if (Math.abs(previous - used) < used / 200) {
                return Math.min(previous, used);
            }
            previous = used;
        }
        return previous;
    }
}
