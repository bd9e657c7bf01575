package dev.fencedlock.shedlock;

import dev.fencedlock.Lease;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes leases later: a ShedLock task unlocked before its {@code lockAtLeastFor} keeps the lock
 * until then. One daemon thread for the process; a pending release does not keep the JVM alive (the
 * lease then ends with its own validity). Thread-safe.
 */
final class DelayedRelease {
    private static final Logger LOG = LoggerFactory.getLogger(DelayedRelease.class);
    private static final DelayedRelease SHARED = new DelayedRelease();

    private final ScheduledThreadPoolExecutor timer;

    private DelayedRelease() {
        timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "fencedlock-shedlock-release");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    static DelayedRelease shared() {
        return SHARED;
    }

    /** Closes {@code lease} once {@code delay} has passed. */
    void closeAfter(Lease lease, Duration delay) {
        timer.schedule(() -> close(lease), delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    private static void close(Lease lease) {
        try {
            lease.close();
        } catch (RuntimeException e) {
            LOG.warn(
                    "Releasing lock '{}' after its lockAtLeastFor failed; it frees itself when its lease ends",
                    lease.lockName(),
                    e);
        }
    }
}
