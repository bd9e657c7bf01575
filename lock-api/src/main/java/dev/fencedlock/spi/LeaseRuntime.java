package dev.fencedlock.spi;

import dev.fencedlock.LockConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every lease of one client shares: the monotonic clock, the scheduler that runs renewals,
 * expiry checks and loss notifications, the default lease time and the hold-time cap. Keeps track
 * of the leases still held so that closing the client releases them. Thread-safe.
 */
public final class LeaseRuntime implements AutoCloseable {
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final MonotonicClock clock;
    private final Duration leaseTime;
    private final Duration maxHoldTime;
    private final ScheduledThreadPoolExecutor scheduler;
    private final ExecutorService notifier;
    private final Set<AbstractLease> held = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param config supplies {@code fencedlock.lease-time} and {@code fencedlock.max-hold-time}
     * @param clock the monotonic clock for every duration this client measures
     */
    public LeaseRuntime(LockConfig config, MonotonicClock clock) {
        this.clock = clock;
        this.leaseTime = config.leaseTime();
        this.maxHoldTime = config.maxHoldTime().orElse(null);
        this.scheduler = new ScheduledThreadPoolExecutor(
                Math.max(2, Runtime.getRuntime().availableProcessors()),
                daemonThreads("fencedlock-" + config.backend() + "-" + CLIENTS.incrementAndGet() + "-lease-"));
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.notifier = Executors.newSingleThreadExecutor(
                daemonThreads("fencedlock-" + config.backend() + "-" + CLIENTS.get() + "-notifier-"));
        this.scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    public MonotonicClock clock() {
        return clock;
    }

    /** The scheduler for lease housekeeping. Tasks must not block for long. */
    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** Lease time of auto-renewing leases ({@code fencedlock.lease-time}). */
    public Duration leaseTime() {
        return leaseTime;
    }

    /** Cap on how long auto-renewal keeps a lease ({@code fencedlock.max-hold-time}); empty for none. */
    public Optional<Duration> maxHoldTime() {
        return Optional.ofNullable(maxHoldTime);
    }

    /**
     * Runs {@code task} on the thread that tells lease-lost listeners, apart from the scheduler so
     * that a slow listener delays no renewal. Runs it on the caller once the runtime is closed.
     */
    void notify(Runnable task) {
        try {
            notifier.execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    /** Whether {@link #close()} has begun; a closed runtime grants no new leases. */
    public boolean isClosed() {
        return closed;
    }

    /** How many leases of this client are held and not yet released. */
    public int heldLeases() {
        return held.size();
    }

    void register(AbstractLease lease) {
        held.add(lease);
    }

    void unregister(AbstractLease lease) {
        held.remove(lease);
    }

    /** Releases every lease still held, then stops the scheduler. Idempotent. */
    @Override
    public void close() {
        closed = true;
        List<AbstractLease> remaining = new ArrayList<>(held);
        for (AbstractLease lease : remaining) {
            lease.close();
        }
        scheduler.shutdown();
        notifier.shutdown();
        try {
            if (!scheduler.awaitTermination(5, TimeUnit.SECONDS)) {
                scheduler.shutdownNow();
            }
            if (!notifier.awaitTermination(5, TimeUnit.SECONDS)) {
                notifier.shutdownNow();
            }
        } catch (InterruptedException e) {
            scheduler.shutdownNow();
            notifier.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
