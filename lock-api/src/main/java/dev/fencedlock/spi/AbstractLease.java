package dev.fencedlock.spi;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LeaseLostException.Reason;
import dev.fencedlock.LeaseLostListener;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 *
 * <p>This class is the lifecycle's facade over package-private parts that can be read one at a
 * time: {@code LeaseState} (held, lost or closed; validity; loss listeners), {@code BackendCalls}
 * (the order of the backend operations), {@code Renewal} (renewal cadence, hold-time cap and
 * expiry) over {@code LeaseTasks} (the renewal and watchdog timer tasks).
 */
public abstract class AbstractLease implements Lease {
    private static final Logger log = LoggerFactory.getLogger(AbstractLease.class);

    private final String lockName;
    private final long token;
    private final Duration leaseTime;
    private final boolean autoRenew;
    private final LeaseRuntime runtime;
    private final LeaseState state;
    private final BackendCalls calls = new BackendCalls();
    private final Renewal renewal;
    private volatile AbstractFencedLock grantedBy;

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
        this.state = new LeaseState(validUntilNanos);
        this.renewal = new Renewal(this, state, calls, runtime, leaseTime, autoRenew);
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
        if (!state.isHeld()) {
            return;
        }
        runtime.register(this);
        renewal.start();
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
        return state.isValidAt(runtime.clock().nanoTime());
    }

    @Override
    public final Duration remaining() {
        return state.remainingAt(runtime.clock().nanoTime());
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
        renewal.requireNotStopped(lockName, token);
        if (!calls.runInTurn(() -> extendInTurn(newLeaseTime))) {
            throw lossOrClosed();
        }
    }

    /** The extension, once every earlier backend call of this lease has completed. */
    private void extendInTurn(Duration newLeaseTime) {
        requireHeld();
        long start = runtime.clock().nanoTime();
        Optional<Duration> validity = doExtend(newLeaseTime);
        if (validity.isEmpty()) {
            markLost(Reason.TAKEN_OVER, "the extension found the lock no longer held by this lease", null);
            throw lossOrClosed();
        }
        if (!state.isHeld()) {
            throw lossOrClosed();
        }
        renewal.moveValidity(start + validity.get().toNanos());
        renewal.extended(validity.get());
    }

    /** Loses a held lease whose validity has ended; throws unless the lease is held. */
    private void requireHeld() {
        if (state.expiredAt(runtime.clock().nanoTime())) {
            markLost(renewal.expiryKind(), renewal.expiryReason(), null);
        }
        if (!state.isHeld()) {
            throw lossOrClosed();
        }
    }

    private LeaseLostException lossOrClosed() {
        LeaseLostException loss = state.loss();
        return loss != null ? loss : new LeaseLostException(lockName, token, "the lease was closed");
    }

    @Override
    public final void onLost(LeaseLostListener listener) {
        Objects.requireNonNull(listener, "listener");
        LeaseLostException alreadyLost = state.addListener(listener);
        if (alreadyLost != null) {
            LeaseState.tell(listener, this, alreadyLost);
        }
    }

    @Override
    public final void close() {
        if (state.closeIfHeld()) {
            renewal.cancelTasks();
        }
        calls.releaseInTurn(renewal::cancelTasks, this::releaseOnBackend);
    }

    /** The release on {@link #close()}: on the caller's thread, after any call in flight. */
    private void releaseOnBackend() {
        try {
            doRelease();
        } catch (RuntimeException e) {
            logReleaseFailure(e);
        } finally {
            runtime.unregister(this);
        }
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
        renewal.stop(why);
    }

    /** Whether {@link #stopRenewal} was called. */
    public final boolean renewalStopped() {
        return renewal.stopped();
    }

    /** Whether {@link #close()} was called while the lease was held. */
    public final boolean isClosed() {
        return state.phase() == LeaseState.Phase.CLOSED;
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
        if (!state.beginLoss()) {
            return;
        }
        renewal.cancelTasks();
        LeaseLostException exception = new LeaseLostException(lockName, token, reason, detail, cause);
        List<LeaseLostListener> toTell = state.recordLoss(exception);
        log.warn("{}", exception.getMessage());
        runtime.leaseLost(this, exception);
        releaseAfterLoss()
                .whenComplete((ignored, failure) -> runtime.notify(() -> {
                    for (LeaseLostListener listener : toTell) {
                        LeaseState.tell(listener, this, exception);
                    }
                }));
    }

    /**
     * The release after a loss: chained after any call in flight, never blocking the calling
     * (scheduler) thread. The future completes when the release did, however it ended.
     */
    private CompletableFuture<Void> releaseAfterLoss() {
        CompletableFuture<Void> released = calls.releaseAsync(this::doReleaseAsync, failure -> {
            if (failure != null) {
                logReleaseFailure(failure);
            }
            runtime.unregister(this);
        });
        renewal.cancelTasks();
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

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{lock='" + lockName + "', token=" + token + ", state=" + state.phase()
                + ", remaining=" + remaining().toMillis() + "ms}";
    }
}
