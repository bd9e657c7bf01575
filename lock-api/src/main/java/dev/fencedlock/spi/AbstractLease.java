package dev.fencedlock.spi;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LeaseLostListener;
import dev.fencedlock.LockException;
import dev.fencedlock.internal.config.DurationFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease lifecycle shared by every backend. A backend supplies two operations, {@link
 * #doExtend} and {@link #doRelease}; this class does the rest:
 *
 * <ol>
 *   <li>validity is kept on the runtime's monotonic clock, as the backend reported it;
 *   <li>an auto-renewing lease is extended every third of its lease time; a renewal that cannot
 *       reach the backend is retried while validity remains, a renewal that finds the lock gone
 *       marks the lease lost at once;
 *   <li>a watchdog marks the lease lost when its validity runs out (a fixed lease reaching its end,
 *       or renewals failing, or the hold-time cap reached);
 *   <li>on loss the backend is first asked to release whatever this grant may still hold there,
 *       then every {@link LeaseLostListener} is told exactly once, on the runtime's notifier
 *       thread, so a listener may re-acquire the same lock and a slow listener delays no renewal;
 *   <li>{@link #close()} is final and idempotent: it stops renewal, waits for a renewal in flight,
 *       and releases on the backend; no renewal runs after it returns.
 * </ol>
 *
 * <p>Thread-safety: all public methods are thread-safe. {@link #doExtend} and {@link #doRelease}
 * are never called concurrently with each other for the same lease, and {@link #doRelease} is
 * called at most once.
 */
public abstract class AbstractLease implements Lease {
    private static final Logger log = LoggerFactory.getLogger(AbstractLease.class);

    private enum State {
        HELD,
        LOST,
        CLOSED
    }

    private final String lockName;
    private final long token;
    private final Duration leaseTime;
    private final boolean autoRenew;
    private final LeaseRuntime runtime;
    private final long grantedAtNanos;
    private final AtomicReference<State> state = new AtomicReference<>(State.HELD);
    private final ReentrantLock backendCalls = new ReentrantLock();
    private final Object listenerGuard = new Object();
    private final List<LeaseLostListener> listeners = new ArrayList<>(2);

    private volatile long validUntilNanos;
    private volatile ScheduledFuture<?> renewalTask;
    private volatile ScheduledFuture<?> watchdogTask;
    private volatile boolean holdCapReached;
    private volatile RuntimeException lastRenewalFailure;
    private boolean releasedOnBackend; // guarded by backendCalls
    private LeaseLostException loss; // guarded by listenerGuard

    /**
     * @param validUntilNanos when the grant stops being valid, on {@code runtime.clock()}: the start
     *     of the attempt that won plus the validity the backend vouches for
     */
    protected AbstractLease(
            String lockName,
            long token,
            Duration leaseTime,
            boolean autoRenew,
            long validUntilNanos,
            LeaseRuntime runtime) {
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.token = token;
        this.leaseTime = Objects.requireNonNull(leaseTime, "leaseTime");
        this.autoRenew = autoRenew;
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.validUntilNanos = validUntilNanos;
        this.grantedAtNanos = runtime.clock().nanoTime();
    }

    /**
     * Extends this grant on the backend to {@code leaseTime}.
     *
     * @return the validity gained, measured from the moment this method was called; empty if the
     *     backend says this grant no longer holds the lock
     * @throws dev.fencedlock.LockUnavailableException if the backend could not answer
     */
    protected abstract Optional<Duration> doExtend(Duration leaseTime);

    /**
     * Releases the lock on the backend if this grant still holds it. Must never release a later
     * grant's lock. Called at most once, after closing or after a loss; exceptions are logged.
     */
    protected abstract void doRelease();

    /** Starts the watchdog and renewal; called once, by {@link AbstractFencedLock}, after the grant. */
    final void activate() {
        if (state.get() != State.HELD) {
            return;
        }
        runtime.register(this);
        scheduleWatchdog();
        if (autoRenew) {
            renewalTask = schedule(this::renew, renewalPeriodNanos());
        }
    }

    @Override
    public final String lockName() {
        return lockName;
    }

    @Override
    public final long token() {
        return token;
    }

    /** The lease time this lease was granted with. */
    public final Duration leaseTime() {
        return leaseTime;
    }

    /** Whether the lease renews itself. */
    public final boolean autoRenewing() {
        return autoRenew;
    }

    @Override
    public final boolean isValid() {
        return state.get() == State.HELD && runtime.clock().nanoTime() - validUntilNanos < 0;
    }

    @Override
    public final Duration remaining() {
        long left = validUntilNanos - runtime.clock().nanoTime();
        return state.get() == State.HELD && left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    @Override
    public final void extend(Duration newLeaseTime) {
        if (newLeaseTime == null || newLeaseTime.isZero() || newLeaseTime.isNegative()) {
            throw new IllegalArgumentException("leaseTime must be positive, got "
                    + (newLeaseTime == null ? "null" : DurationFormat.format(newLeaseTime)));
        }
        backendCalls.lock();
        try {
            requireHeld();
            long start = runtime.clock().nanoTime();
            Optional<Duration> validity = doExtend(newLeaseTime);
            if (validity.isEmpty()) {
                markLost("the extension found the lock no longer held by this lease", null);
                throw lossOrClosed();
            }
            if (state.get() != State.HELD) {
                throw lossOrClosed();
            }
            validUntilNanos = start + validity.get().toNanos();
        } finally {
            backendCalls.unlock();
        }
    }

    private void requireHeld() {
        State current = state.get();
        if (current == State.HELD && runtime.clock().nanoTime() - validUntilNanos >= 0) {
            markLost(expiryReason(), null);
        }
        if (state.get() != State.HELD) {
            throw lossOrClosed();
        }
    }

    private LeaseLostException lossOrClosed() {
        synchronized (listenerGuard) {
            if (loss != null) {
                return loss;
            }
        }
        return new LeaseLostException(lockName, token, "the lease was closed");
    }

    @Override
    public final void onLost(LeaseLostListener listener) {
        Objects.requireNonNull(listener, "listener");
        LeaseLostException alreadyLost;
        synchronized (listenerGuard) {
            if (loss == null) {
                listeners.add(listener);
                return;
            }
            alreadyLost = loss;
        }
        tell(listener, alreadyLost);
    }

    @Override
    public final void close() {
        State previous = state.getAndUpdate(s -> s == State.HELD ? State.CLOSED : s);
        if (previous == State.HELD) {
            cancelTasks();
        }
        releaseOnBackend();
    }

    /** Whether {@link #close()} was called while the lease was held. */
    public final boolean isClosed() {
        return state.get() == State.CLOSED;
    }

    /**
     * Marks the lease lost, for backends that learn of a loss themselves (for example a ZooKeeper
     * session that was suspended). Does nothing if the lease is already lost or closed. Listeners
     * are told, and the backend release runs, on the runtime's scheduler.
     */
    protected final void markLost(String reason, Throwable cause) {
        if (!state.compareAndSet(State.HELD, State.LOST)) {
            return;
        }
        cancelTasks();
        LeaseLostException exception = new LeaseLostException(lockName, token, reason, cause);
        List<LeaseLostListener> toTell;
        synchronized (listenerGuard) {
            loss = exception;
            toTell = new ArrayList<>(listeners);
            listeners.clear();
        }
        log.warn("{}", exception.getMessage());
        runAsync(() -> {
            releaseOnBackend();
            runtime.notify(() -> {
                for (LeaseLostListener listener : toTell) {
                    tell(listener, exception);
                }
            });
        });
    }

    private void tell(LeaseLostListener listener, LeaseLostException exception) {
        try {
            listener.leaseLost(this, exception);
        } catch (RuntimeException e) {
            log.error("Lease-lost listener for lock '{}' threw", lockName, e);
        }
    }

    private void releaseOnBackend() {
        backendCalls.lock();
        try {
            if (releasedOnBackend) {
                return;
            }
            releasedOnBackend = true;
            cancelTasks();
            doRelease();
        } catch (RuntimeException e) {
            log.warn(
                    "Could not release lock '{}' (token {}); it frees itself when its lease time passes: {}",
                    lockName,
                    token,
                    e.toString());
        } finally {
            backendCalls.unlock();
            runtime.unregister(this);
        }
    }

    private void renew() {
        backendCalls.lock();
        try {
            if (state.get() != State.HELD) {
                return;
            }
            long now = runtime.clock().nanoTime();
            if (now - validUntilNanos >= 0) {
                markLost(expiryReason(), lastRenewalFailure);
                return;
            }
            if (wouldExceedHoldCap(now)) {
                holdCapReached = true;
                return;
            }
            Optional<Duration> validity;
            try {
                validity = doExtend(leaseTime);
            } catch (RuntimeException e) {
                lastRenewalFailure = e;
                if (!(e instanceof LockException)) {
                    log.warn("Renewal of lock '{}' failed unexpectedly", lockName, e);
                }
                long left = validUntilNanos - runtime.clock().nanoTime();
                log.debug(
                        "Renewal of lock '{}' failed, {} ms of validity left: {}",
                        lockName,
                        left / 1_000_000,
                        e.toString());
                if (left > 0 && state.get() == State.HELD) {
                    renewalTask =
                            schedule(this::renew, Math.max(1_000_000L, Math.min(renewalPeriodNanos() / 4, left / 3)));
                }
                return;
            }
            if (validity.isEmpty()) {
                markLost("a renewal found the lock no longer held by this lease", null);
                return;
            }
            if (state.get() == State.HELD) {
                lastRenewalFailure = null;
                validUntilNanos = now + validity.get().toNanos();
                renewalTask = schedule(this::renew, renewalPeriodNanos());
            }
        } finally {
            backendCalls.unlock();
        }
    }

    private boolean wouldExceedHoldCap(long now) {
        Optional<Duration> cap = runtime.maxHoldTime();
        return cap.isPresent()
                && now - grantedAtNanos + leaseTime.toNanos() > cap.get().toNanos();
    }

    private long renewalPeriodNanos() {
        return Math.max(1_000_000L, leaseTime.toNanos() / 3);
    }

    private void scheduleWatchdog() {
        long delay = validUntilNanos - runtime.clock().nanoTime();
        watchdogTask = schedule(this::checkExpiry, Math.max(0, delay) + 500_000L);
    }

    private void checkExpiry() {
        if (state.get() != State.HELD) {
            return;
        }
        if (runtime.clock().nanoTime() - validUntilNanos >= 0) {
            markLost(expiryReason(), lastRenewalFailure);
        } else {
            scheduleWatchdog();
        }
    }

    private String expiryReason() {
        if (holdCapReached) {
            return "the hold-time cap of "
                    + DurationFormat.format(runtime.maxHoldTime().orElseThrow())
                    + " was reached, so renewal stopped and the lease ran out";
        }
        return autoRenew
                ? "renewals failed until the lease's validity ran out"
                : "its fixed lease time of " + DurationFormat.format(leaseTime) + " passed";
    }

    private ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        try {
            return runtime.scheduler().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return null;
        }
    }

    private void runAsync(Runnable task) {
        try {
            runtime.scheduler().execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            task.run();
        }
    }

    private void cancelTasks() {
        ScheduledFuture<?> renewal = renewalTask;
        if (renewal != null) {
            renewal.cancel(false);
        }
        ScheduledFuture<?> watchdog = watchdogTask;
        if (watchdog != null) {
            watchdog.cancel(false);
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{lock='" + lockName + "', token=" + token + ", state=" + state.get()
                + ", remaining=" + remaining().toMillis() + "ms}";
    }
}
