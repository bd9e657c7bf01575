package dev.fencedlock.spi;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LeaseLostException.Reason;
import dev.fencedlock.LeaseLostListener;
import dev.fencedlock.LockException;
import dev.fencedlock.internal.config.DurationFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease lifecycle shared by every backend. A backend supplies two blocking operations, {@link
 * #doExtend} and {@link #doRelease}, for the caller's own {@link #extend} and {@link #close()}, and
 * may supply their non-blocking forms, {@link #doExtendAsync} and {@link #doReleaseAsync}, which
 * renewals and the release of a lost lease use; this class does the rest:
 *
 * <ol>
 *   <li>validity is kept on the runtime's monotonic clock, as the backend reported it;
 *   <li>an auto-renewing lease is extended on the renewal cadence that {@link LeaseRuntime}
 *       documents (every third of its lease time); a renewal that cannot reach the backend is
 *       retried while validity remains, a renewal that finds the lock gone marks the lease lost at
 *       once. A renewal never blocks a scheduler thread: it starts {@link #doExtendAsync} and
 *       handles the answer when it completes;
 *   <li>a watchdog marks the lease lost when its validity runs out (a fixed lease reaching its end,
 *       or renewals failing, or the hold-time cap reached). It follows every move of validity: an
 *       {@link #extend} to a shorter time moves the loss (and so the release on the backend and
 *       {@code onLost}) to the new end, not the old one; on an auto-renewing lease it also brings
 *       the next renewal within the new validity. An auto-renewing lease starts its watchdog with
 *       its first renewal, which is due before its validity ends, so a lease closed before then
 *       (most are) costs the scheduler one task, not two;
 *   <li>on loss the backend is first asked to release whatever this grant may still hold there,
 *       then every {@link LeaseLostListener} is told exactly once, on the runtime's notifier
 *       thread, so a listener may re-acquire the same lock and a slow listener delays no renewal;
 *   <li>{@link #close()} is final and idempotent: it stops renewal, waits for a renewal in flight,
 *       and releases on the backend; no renewal runs after it returns.
 * </ol>
 *
 * <p>Thread-safety: all public methods are thread-safe. The backend operations of one lease
 * ({@link #doExtend}, {@link #doExtendAsync}, {@link #doRelease}, {@link #doReleaseAsync}) never
 * overlap: each starts after the previous one completed (for the asynchronous ones: after its
 * future completed), in the order they were asked for; one of the two release operations is
 * called, at most once, and nothing follows it.
 */
public abstract class AbstractLease implements Lease {
    private static final Logger log = LoggerFactory.getLogger(AbstractLease.class);
    /** How long after the end of validity the watchdog looks, so that it finds the end passed. */
    private static final long WATCHDOG_SLACK_NANOS = 500_000L;

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
    private final Object calls = new Object();
    private final Object listenerGuard = new Object();
    private final Object tasks = new Object();
    private final List<LeaseLostListener> listeners = new ArrayList<>(2);

    private volatile long validUntilNanos;
    private volatile AbstractFencedLock grantedBy;
    private volatile LeaseTimer.Task renewalTask;
    private volatile LeaseTimer.Task watchdogTask;
    private long watchdogDueNanos; // guarded by tasks
    private volatile boolean holdCapReached;
    private volatile RuntimeException lastRenewalFailure;
    private volatile String renewalStopped; // why stopRenewal was called; null while renewal may run
    private boolean releasedOnBackend; // guarded by calls
    private CompletableFuture<?> lastCall = CompletableFuture.completedFuture(null); // guarded by calls
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
     * grant's lock. Called at most once, on the thread that closes the lease; exceptions are logged.
     */
    protected abstract void doRelease();

    /**
     * The renewal form of {@link #doExtend}: starts the extension and returns without waiting for
     * the backend. Called on a scheduler thread, which it must not block on I/O. The future
     * completes with what {@link #doExtend} would return, or exceptionally with a {@link
     * dev.fencedlock.LockUnavailableException} if the backend could not answer; it must complete
     * within a bounded time (a backend's own request timeout), or the lease's later calls wait.
     *
     * <p>The default runs {@link #doExtend} on the runtime's bounded backend executor ({@link
     * LeaseRuntime#backendExecutor()}), so that a blocking backend at least never holds up the
     * scheduler; backends with asynchronous or pipelined I/O override it.
     */
    protected CompletableFuture<Optional<Duration>> doExtendAsync(Duration leaseTime) {
        return CompletableFuture.supplyAsync(() -> doExtend(leaseTime), runtime.backendExecutor());
    }

    /**
     * The release of a lost lease: the non-blocking form of {@link #doRelease}, with the same
     * contract, called on a scheduler thread at most once (and then {@link #doRelease} is not). The
     * default runs {@link #doRelease} on the runtime's backend executor.
     */
    protected CompletableFuture<Void> doReleaseAsync() {
        return CompletableFuture.runAsync(this::doRelease, runtime.backendExecutor());
    }

    /**
     * Starts the watchdog and renewal; called once, by {@link AbstractFencedLock}, after the grant.
     *
     * @param grantedBy the lock whose backend granted this lease, which knows its validity allowance
     */
    final void activate(AbstractFencedLock grantedBy) {
        this.grantedBy = grantedBy;
        if (state.get() != State.HELD) {
            return;
        }
        runtime.register(this);
        long firstRenewal = renewalPeriodNanos();
        if (!autoRenew || validUntilNanos - runtime.clock().nanoTime() <= firstRenewal) {
            scheduleWatchdog();
        }
        if (autoRenew) {
            scheduleRenewal(firstRenewal);
        }
    }

    @Override
    public final String lockName() {
        return lockName;
    }

    /** The backend of the runtime this lease belongs to. */
    @Override
    public final String backend() {
        return runtime.backend();
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

    /**
     * The lease time to {@link #extend} this lease to so that it stays valid for at least {@code
     * validity} from the call, if the backend answers at once: {@code validity} plus the backend's
     * {@linkplain AbstractFencedLock#validityAllowance validity allowance}.
     */
    @Override
    public final Duration leaseTimeFor(Duration validity) {
        AbstractFencedLock lock = grantedBy;
        return lock == null ? validity : lock.leaseTimeFor(validity);
    }

    @Override
    public final void extend(Duration newLeaseTime) {
        if (newLeaseTime == null || newLeaseTime.isZero() || newLeaseTime.isNegative()) {
            throw new IllegalArgumentException("leaseTime must be positive, got "
                    + (newLeaseTime == null ? "null" : DurationFormat.format(newLeaseTime)));
        }
        AbstractFencedLock lock = grantedBy;
        if (lock != null) {
            lock.requireGrantable(newLeaseTime);
        }
        requireHeld();
        requireRenewable();
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<?> previous;
        synchronized (calls) {
            if (releasedOnBackend) {
                throw lossOrClosed();
            }
            previous = lastCall;
            lastCall = mine;
        }
        try {
            awaitQuietly(previous);
            requireHeld();
            long start = runtime.clock().nanoTime();
            Optional<Duration> validity = doExtend(newLeaseTime);
            if (validity.isEmpty()) {
                markLost(Reason.TAKEN_OVER, "the extension found the lock no longer held by this lease", null);
                throw lossOrClosed();
            }
            if (state.get() != State.HELD) {
                throw lossOrClosed();
            }
            moveValidity(start + validity.get().toNanos());
            if (autoRenew) {
                // the next renewal comes before the new validity ends, however short it is
                scheduleRenewal(Math.min(renewalPeriodNanos(), validity.get().toNanos() / 3));
            }
        } finally {
            mine.complete(null);
        }
    }

    /** Waits for a backend call of this lease to complete, however it ended. */
    private static void awaitQuietly(CompletableFuture<?> call) {
        boolean interrupted = false;
        while (true) {
            try {
                call.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | CancellationException e) {
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void requireHeld() {
        State current = state.get();
        if (current == State.HELD && runtime.clock().nanoTime() - validUntilNanos >= 0) {
            markLost(expiryKind(), expiryReason(), null);
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

    /**
     * Stops extending this lease for good: no further automatic renewal starts, and {@link
     * #extend} throws {@link LeaseLostException} (naming {@code why}) without asking the backend.
     * The lease keeps the validity it has, so it ends no later than one lease time after this call
     * (a renewal already in flight may still complete, counted from before this call); when its
     * validity runs out the watchdog marks it lost as usual ({@link LeaseLostException.Reason#EXPIRED},
     * the detail naming {@code why}), releases it on the backend and tells its listeners once. A
     * client calls this on the leases of a fallback backend when the primary answers again, so that
     * they end within a bounded time. Idempotent (the first reason is kept); thread-safe; does
     * nothing to a lease already lost or closed.
     *
     * @param why why renewal stopped, for the loss's message, e.g. {@code "the primary backend
     *     redlock answers again"}
     */
    public final void stopRenewal(String why) {
        Objects.requireNonNull(why, "why");
        synchronized (calls) {
            if (renewalStopped == null) {
                renewalStopped = why;
            }
        }
        synchronized (tasks) {
            cancel(renewalTask);
            ensureWatchdog(); // the renewal that would have started it will not run
        }
    }

    /** Whether {@link #stopRenewal} was called. */
    public final boolean renewalStopped() {
        return renewalStopped != null;
    }

    private void requireRenewable() {
        String why = renewalStopped;
        if (why != null) {
            throw new LeaseLostException(
                    lockName, token, Reason.EXPIRED, "renewal was stopped (" + why + "); the lease runs out", null);
        }
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
        markLost(Reason.OTHER, reason, cause);
    }

    /**
     * As {@link #markLost(String, Throwable)}, with the reason that {@link
     * LeaseLostException#reason()} and {@link dev.fencedlock.LockEventListener#leaseLost} report.
     */
    protected final void markLost(Reason reason, String detail, Throwable cause) {
        if (!state.compareAndSet(State.HELD, State.LOST)) {
            return;
        }
        cancelTasks();
        LeaseLostException exception = new LeaseLostException(lockName, token, reason, detail, cause);
        List<LeaseLostListener> toTell;
        synchronized (listenerGuard) {
            loss = exception;
            toTell = new ArrayList<>(listeners);
            listeners.clear();
        }
        log.warn("{}", exception.getMessage());
        runtime.leaseLost(this, exception);
        releaseAsync()
                .whenComplete((ignored, failure) -> runtime.notify(() -> {
                    for (LeaseLostListener listener : toTell) {
                        tell(listener, exception);
                    }
                }));
    }

    private void tell(LeaseLostListener listener, LeaseLostException exception) {
        try {
            listener.leaseLost(this, exception);
        } catch (RuntimeException e) {
            log.error("Lease-lost listener for lock '{}' threw", lockName, e);
        }
    }

    /** The release on {@link #close()}: on the caller's thread, after any call in flight. */
    private void releaseOnBackend() {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<?> previous;
        synchronized (calls) {
            if (releasedOnBackend) {
                previous = lastCall;
                mine = null;
            } else {
                releasedOnBackend = true;
                previous = lastCall;
                lastCall = mine;
            }
        }
        cancelTasks();
        if (mine == null) {
            awaitQuietly(previous); // a release already runs (that of a loss): close() returns after it
            return;
        }
        try {
            awaitQuietly(previous);
            doRelease();
        } catch (RuntimeException e) {
            logReleaseFailure(e);
        } finally {
            runtime.unregister(this);
            mine.complete(null);
        }
    }

    /**
     * The release after a loss: chained after any call in flight, never blocking the calling
     * (scheduler) thread. The future completes when the release did, however it ended.
     */
    private CompletableFuture<Void> releaseAsync() {
        CompletableFuture<Void> released;
        synchronized (calls) {
            if (releasedOnBackend) {
                return lastCall.handle((ignored, failure) -> null);
            }
            releasedOnBackend = true;
            released = lastCall.handle((ignored, failure) -> null)
                    .thenCompose(ignored -> doReleaseAsync())
                    .handle((ignored, failure) -> {
                        if (failure != null) {
                            logReleaseFailure(failure);
                        }
                        runtime.unregister(this);
                        return null;
                    });
            lastCall = released;
        }
        cancelTasks();
        return released;
    }

    private void logReleaseFailure(Throwable failure) {
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        log.warn(
                "Could not release lock '{}' (token {}); it frees itself when its lease time passes: {}",
                lockName,
                token,
                cause.toString());
    }

    /**
     * One renewal, on a scheduler thread: starts the extension and returns. The validity the
     * backend grants is counted from {@code now}, taken before the extension was even queued
     * behind another call of this lease, so it never runs later than the backend's own.
     */
    private void renew() {
        long now = runtime.clock().nanoTime();
        if (state.get() != State.HELD || renewalStopped != null) {
            return;
        }
        ensureWatchdog();
        if (now - validUntilNanos >= 0) {
            markLost(expiryKind(), expiryReason(), lastRenewalFailure);
            return;
        }
        if (wouldExceedHoldCap(now)) {
            holdCapReached = true;
            return;
        }
        CompletableFuture<Optional<Duration>> extension;
        synchronized (calls) {
            if (releasedOnBackend) {
                return;
            }
            extension = lastCall.handle((ignored, failure) -> null).thenCompose(ignored -> startExtension());
            lastCall = extension;
        }
        extension.whenComplete((validity, failure) -> renewed(now, validity, failure));
    }

    private CompletableFuture<Optional<Duration>> startExtension() {
        if (state.get() != State.HELD) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        try {
            return doExtendAsync(leaseTime);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void renewed(long startNanos, Optional<Duration> validity, Throwable failure) {
        if (state.get() != State.HELD) {
            return;
        }
        if (failure != null) {
            RuntimeException e = unwrap(failure);
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
            if (left > 0) {
                scheduleRenewal(retryDelayNanos(left));
            }
            return;
        }
        if (validity.isEmpty()) {
            markLost(Reason.TAKEN_OVER, "a renewal found the lock no longer held by this lease", null);
            return;
        }
        lastRenewalFailure = null;
        moveValidity(startNanos + validity.get().toNanos());
        scheduleRenewal(renewalPeriodNanos());
        if (state.get() != State.HELD) {
            cancelTasks(); // closed or lost meanwhile: the task just scheduled must not run
        }
    }

    private static RuntimeException unwrap(Throwable failure) {
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause instanceof RuntimeException runtimeException
                ? runtimeException
                : new IllegalStateException(cause.toString(), cause);
    }

    /** The delay before retrying a failed renewal; see {@link LeaseRuntime} for the cadence. */
    private long retryDelayNanos(long validityLeftNanos) {
        return Math.max(1_000_000L, Math.min(renewalPeriodNanos() / 4, validityLeftNanos / 3));
    }

    private boolean wouldExceedHoldCap(long now) {
        Optional<Duration> cap = runtime.maxHoldTime();
        return cap.isPresent()
                && now - grantedAtNanos + leaseTime.toNanos() > cap.get().toNanos();
    }

    private long renewalPeriodNanos() {
        return Math.max(1_000_000L, leaseTime.toNanos() / 3);
    }

    /**
     * Sets the end of validity. An end earlier than the watchdog's next check (an {@link #extend} to
     * a shorter time, or a renewal back to the lease time after a longer extension) moves the check
     * to it, so that the loss, its release on the backend and {@code onLost} come when validity ends.
     */
    private void moveValidity(long newValidUntilNanos) {
        validUntilNanos = newValidUntilNanos;
        boolean earlier;
        synchronized (tasks) {
            earlier = watchdogTask != null && watchdogDueNanos - (newValidUntilNanos + WATCHDOG_SLACK_NANOS) > 0;
        }
        if (earlier) {
            scheduleWatchdog();
        }
    }

    /** Schedules the next expiry check just after validity ends, replacing any pending one. */
    private void scheduleWatchdog() {
        synchronized (tasks) {
            cancel(watchdogTask);
            long now = runtime.clock().nanoTime();
            long delay = Math.max(0, validUntilNanos - now) + WATCHDOG_SLACK_NANOS;
            watchdogDueNanos = now + delay;
            watchdogTask = schedule(this::checkExpiry, delay);
        }
    }

    /**
     * Starts the watchdog of an auto-renewing lease if it has not started yet. Such a lease starts
     * it late, on its first renewal (or {@link #stopRenewal}), which is due before its validity
     * ends: most leases are closed sooner and never schedule it, one task per grant instead of two.
     * A grant whose validity ends before its first renewal is due starts it at once ({@link
     * #activate}), so the loss comes when validity ends, as for every lease.
     */
    private void ensureWatchdog() {
        synchronized (tasks) {
            if (watchdogTask == null && state.get() == State.HELD) {
                scheduleWatchdog();
            }
        }
    }

    /** Schedules the next renewal, replacing any pending one, so that one chain of renewals runs. */
    private void scheduleRenewal(long delayNanos) {
        synchronized (tasks) {
            cancel(renewalTask);
            renewalTask = schedule(this::renew, delayNanos);
        }
    }

    private void checkExpiry() {
        if (state.get() != State.HELD) {
            return;
        }
        if (runtime.clock().nanoTime() - validUntilNanos >= 0) {
            markLost(expiryKind(), expiryReason(), lastRenewalFailure);
        } else {
            scheduleWatchdog();
        }
    }

    private Reason expiryKind() {
        return autoRenew && !holdCapReached && renewalStopped == null ? Reason.RENEWAL_FAILED : Reason.EXPIRED;
    }

    private String expiryReason() {
        if (renewalStopped != null) {
            return "renewal was stopped (" + renewalStopped + "), so the lease ran out";
        }
        if (holdCapReached) {
            return "the hold-time cap of "
                    + DurationFormat.format(runtime.maxHoldTime().orElseThrow())
                    + " was reached, so renewal stopped and the lease ran out";
        }
        return autoRenew
                ? "renewals failed until the lease's validity ran out"
                : "its fixed lease time of " + DurationFormat.format(leaseTime) + " passed";
    }

    private LeaseTimer.Task schedule(Runnable task, long delayNanos) {
        try {
            return runtime.timer().schedule(task, delayNanos);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return null;
        }
    }

    private void cancelTasks() {
        synchronized (tasks) {
            cancel(renewalTask);
            cancel(watchdogTask);
        }
    }

    private static void cancel(LeaseTimer.Task task) {
        if (task != null) {
            task.cancel();
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{lock='" + lockName + "', token=" + token + ", state=" + state.get()
                + ", remaining=" + remaining().toMillis() + "ms}";
    }
}
