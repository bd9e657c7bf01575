package dev.fencedlock.spi;

import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockEventListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every lease of one client shares: the monotonic clock, the scheduler that runs renewals,
 * expiry checks and loss notifications, the default lease time and the hold-time cap. Keeps track
 * of the leases still held so that closing the client releases them. Thread-safe.
 *
 * <h2>The renewal cadence (what a backend can rely on)</h2>
 *
 * <ul>
 *   <li>An auto-renewing lease of lease time {@code L} asks its backend for an extension to {@code
 *       L} every {@code L/3} (at least 1 ms) after the previous renewal succeeded, through {@link
 *       AbstractLease#doExtendAsync}; the new validity counts from before the request was made.
 *   <li>A renewal that fails (the future completes exceptionally, typically with {@link
 *       dev.fencedlock.LockUnavailableException}) is retried after {@code min(L/12, left/3)} (at
 *       least 1 ms), {@code left} being the validity still left, for as long as any is left; one
 *       that finds the lock gone (an empty result) loses the lease at once.
 *   <li>Renewals, expiry checks and releases of lost leases run on the {@link #scheduler()}, a few
 *       threads ({@code max(2, cores)}) shared by every lease of the client. Nothing a backend does
 *       there may wait on the network: one silent node would then starve every other lease. A
 *       backend either answers asynchronously (pipelined or event-driven I/O that completes the
 *       future later, on its own thread) or leaves the default, which runs its blocking call on the
 *       {@link #backendExecutor()}.
 *   <li>At most one backend call of a lease is in flight: the next renewal of a lease is not
 *       started before the previous call's future completed, so a backend's futures must complete
 *       (normally or not) within a bounded time, such as its request timeout.
 * </ul>
 */
public final class LeaseRuntime implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LeaseRuntime.class);
    private static final LockEventListener NO_LISTENER = new LockEventListener() {};
    private static final AtomicInteger CLIENTS = new AtomicInteger();
    private static final int BACKEND_QUEUE = 16_384;

    private final String backend;
    private final LockEventListener listener;
    private final MonotonicClock clock;
    private final Duration leaseTime;
    private final Duration maxHoldTime;
    private final ScheduledThreadPoolExecutor scheduler;
    private final ExecutorService notifier;
    private final ThreadPoolExecutor backendExecutor;
    private final LeaseTimer timer;
    private final Set<AbstractLease> held = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param config supplies {@code fencedlock.lease-time} and {@code fencedlock.max-hold-time}
     * @param clock the monotonic clock for every duration this client measures
     */
    public LeaseRuntime(LockConfig config, MonotonicClock clock) {
        this(config.backend(), config, clock, NO_LISTENER);
    }

    /**
     * The runtime of one backend of a client: the configured backend, or its {@code
     * fencedlock.fallback}.
     *
     * @param backend the backend whose leases this runtime keeps; {@link AbstractLease#backend()}
     *     reports it
     * @param listener told about every lease of this runtime (see {@link LockEventListener})
     */
    public LeaseRuntime(String backend, LockConfig config, MonotonicClock clock, LockEventListener listener) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.clock = clock;
        this.leaseTime = config.leaseTime();
        this.maxHoldTime = config.maxHoldTime().orElse(null);
        this.scheduler = new ScheduledThreadPoolExecutor(
                Math.max(2, Runtime.getRuntime().availableProcessors()),
                daemonThreads("fencedlock-" + backend + "-" + CLIENTS.incrementAndGet() + "-lease-"));
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.notifier = Executors.newSingleThreadExecutor(
                daemonThreads("fencedlock-" + backend + "-" + CLIENTS.get() + "-notifier-"));
        this.scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.timer = new LeaseTimer(scheduler);
        int backendThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
        this.backendExecutor = new ThreadPoolExecutor(
                backendThreads,
                backendThreads,
                30,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(BACKEND_QUEUE),
                daemonThreads("fencedlock-" + config.backend() + "-" + CLIENTS.get() + "-backend-"));
        this.backendExecutor.allowCoreThreadTimeOut(true);
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** The backend whose leases this runtime keeps. */
    public String backend() {
        return backend;
    }

    public MonotonicClock clock() {
        return clock;
    }

    /** The scheduler for lease housekeeping. Tasks must not block for long. */
    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** Where the leases' renewals and expiry checks wait for their time; they run on the {@link #scheduler()}. */
    LeaseTimer timer() {
        return timer;
    }

    /**
     * Where the default {@link AbstractLease#doExtendAsync} and {@link AbstractLease#doReleaseAsync}
     * run a backend's blocking calls: {@code max(2, cores)} threads and a bounded queue of {@value
     * #BACKEND_QUEUE} tasks. A task it rejects ({@link RejectedExecutionException}) fails that call,
     * which a renewal retries while validity remains.
     */
    public Executor backendExecutor() {
        return backendExecutor;
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
        if (held.add(lease) && listener != NO_LISTENER) {
            tell(() -> listener.leaseGranted(lease));
        }
    }

    void unregister(AbstractLease lease) {
        if (held.remove(lease) && listener != NO_LISTENER) {
            tell(() -> listener.leaseEnded(lease));
        }
    }

    void leaseLost(AbstractLease lease, LeaseLostException cause) {
        tell(() -> listener.leaseLost(lease, cause));
    }

    private void tell(Runnable event) {
        try {
            event.run();
        } catch (RuntimeException e) {
            log.warn("A LockEventListener of backend {} threw; ignored", backend, e);
        }
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
        backendExecutor.shutdown();
        try {
            if (!scheduler.awaitTermination(5, TimeUnit.SECONDS)) {
                scheduler.shutdownNow();
            }
            if (!backendExecutor.awaitTermination(5, TimeUnit.SECONDS)) {
                backendExecutor.shutdownNow();
            }
            if (!notifier.awaitTermination(5, TimeUnit.SECONDS)) {
                notifier.shutdownNow();
            }
        } catch (InterruptedException e) {
            scheduler.shutdownNow();
            notifier.shutdownNow();
            backendExecutor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
