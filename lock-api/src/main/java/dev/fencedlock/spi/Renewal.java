package dev.fencedlock.spi;

import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LeaseLostException.Reason;
import dev.fencedlock.LockException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When one lease renews and when it runs out: the renewal cadence of {@link LeaseRuntime} (every
 * third of the lease time; a failed renewal retried while validity remains; one that finds the
 * lock gone loses the lease at once), the hold-time cap, {@link AbstractLease#stopRenewal}, and the
 * watchdog that loses the lease when its validity ends. A renewal never blocks the scheduler thread
 * it runs on: it starts {@link AbstractLease#doExtendAsync} in the lease's turn ({@link
 * BackendCalls}) and handles the answer when the future completes. Thread-safe.
 */
final class Renewal {
    private static final Logger log = LoggerFactory.getLogger(AbstractLease.class);

    private final AbstractLease lease;
    private final LeaseState state;
    private final BackendCalls calls;
    private final LeaseRuntime runtime;
    private final Duration leaseTime;
    private final boolean autoRenew;
    private final long grantedAtNanos;
    private final LeaseTasks tasks;
    private final AtomicReference<String> stopReason = new AtomicReference<>();
    private volatile boolean holdCapReached;
    private volatile RuntimeException lastFailure;

    Renewal(
            AbstractLease lease,
            LeaseState state,
            BackendCalls calls,
            LeaseRuntime runtime,
            Duration leaseTime,
            boolean autoRenew) {
        this.lease = lease;
        this.state = state;
        this.calls = calls;
        this.runtime = runtime;
        this.leaseTime = leaseTime;
        this.autoRenew = autoRenew;
        this.grantedAtNanos = runtime.clock().nanoTime();
        this.tasks = new LeaseTasks(runtime.timer(), runtime.clock(), state, this::renew, this::checkExpiry);
    }

    /**
     * Starts the lease's tasks after its grant: the first renewal of an auto-renewing lease, and the
     * watchdog at once for a fixed lease or a grant whose validity ends before its first renewal.
     */
    void start() {
        long firstRenewal = periodNanos();
        if (!autoRenew || state.validUntilNanos() - runtime.clock().nanoTime() <= firstRenewal) {
            tasks.scheduleWatchdog();
        }
        if (autoRenew) {
            tasks.scheduleRenewal(firstRenewal);
        }
    }

    /** Sets the end of validity; the watchdog follows it. */
    void moveValidity(long validUntilNanos) {
        state.validUntilNanos(validUntilNanos);
        tasks.followValidity(validUntilNanos);
    }

    /** After an extension that gained {@code validity}: the next renewal comes before it ends, however short. */
    void extended(Duration validity) {
        if (autoRenew) {
            tasks.scheduleRenewal(Math.min(periodNanos(), validity.toNanos() / 3));
        }
    }

    /** Stops renewal for good; the first reason is kept. See {@link AbstractLease#stopRenewal}. */
    void stop(String why) {
        stopReason.compareAndSet(null, why);
        tasks.stopRenewal();
    }

    boolean stopped() {
        return stopReason.get() != null;
    }

    /** @throws LeaseLostException if renewal was stopped, naming why */
    void requireNotStopped(String lockName, long token) {
        String why = stopReason.get();
        if (why != null) {
            throw new LeaseLostException(
                    lockName, token, Reason.EXPIRED, "renewal was stopped (" + why + "); the lease runs out", null);
        }
    }

    /** Cancels the pending renewal and watchdog; a lost or closed lease schedules nothing more. */
    void cancelTasks() {
        tasks.cancelAll();
    }

    /** Why the lease ran out, as {@link LeaseLostException#reason()} reports it. */
    Reason expiryKind() {
        return autoRenew && !holdCapReached && !stopped() ? Reason.RENEWAL_FAILED : Reason.EXPIRED;
    }

    /** Why the lease ran out, for the loss's message. */
    String expiryReason() {
        String why = stopReason.get();
        if (why != null) {
            return "renewal was stopped (" + why + "), so the lease ran out";
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

    /**
     * One renewal, on a scheduler thread: starts the extension and returns. The validity the
     * backend grants is counted from {@code now}, taken before the extension was even queued
     * behind another call of this lease, so it never runs later than the backend's own.
     */
    private void renew() {
        long now = runtime.clock().nanoTime();
        if (!state.isHeld() || stopped()) {
            return;
        }
        tasks.ensureWatchdog();
        if (now - state.validUntilNanos() >= 0) {
            lease.markLost(expiryKind(), expiryReason(), lastFailure);
            return;
        }
        if (wouldExceedHoldCap(now)) {
            holdCapReached = true;
            return;
        }
        CompletableFuture<Optional<Duration>> extension = calls.startInTurn(this::startExtension);
        if (extension != null) {
            extension.whenComplete((validity, failure) -> renewed(now, validity, failure));
        }
    }

    private CompletableFuture<Optional<Duration>> startExtension() {
        if (!state.isHeld()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        try {
            return lease.doExtendAsync(leaseTime);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void renewed(long startNanos, Optional<Duration> validity, Throwable failure) {
        if (!state.isHeld()) {
            return;
        }
        if (failure != null) {
            RuntimeException e = unwrap(failure);
            lastFailure = e;
            if (!(e instanceof LockException)) {
                log.warn("Renewal of lock '{}' failed unexpectedly", lease.lockName(), e);
            }
            long left = state.validUntilNanos() - runtime.clock().nanoTime();
            log.debug(
                    "Renewal of lock '{}' failed, {} ms of validity left: {}",
                    lease.lockName(),
                    left / 1_000_000,
                    e.toString());
            if (left > 0) {
                tasks.scheduleRenewal(retryDelayNanos(left));
            }
            return;
        }
        if (validity.isEmpty()) {
            lease.markLost(Reason.TAKEN_OVER, "a renewal found the lock no longer held by this lease", null);
            return;
        }
        lastFailure = null;
        moveValidity(startNanos + validity.get().toNanos());
        tasks.scheduleRenewal(periodNanos());
        if (!state.isHeld()) {
            tasks.cancelAll(); // closed or lost meanwhile: the task just scheduled must not run
        }
    }

    /** The watchdog: loses the lease if its validity has ended, else looks again when it will have. */
    private void checkExpiry() {
        if (!state.isHeld()) {
            return;
        }
        if (runtime.clock().nanoTime() - state.validUntilNanos() >= 0) {
            lease.markLost(expiryKind(), expiryReason(), lastFailure);
        } else {
            tasks.scheduleWatchdog();
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
        return Math.max(1_000_000L, Math.min(periodNanos() / 4, validityLeftNanos / 3));
    }

    private boolean wouldExceedHoldCap(long now) {
        Optional<Duration> cap = runtime.maxHoldTime();
        return cap.isPresent()
                && now - grantedAtNanos + leaseTime.toNanos() > cap.get().toNanos();
    }

    private long periodNanos() {
        return Math.max(1_000_000L, leaseTime.toNanos() / 3);
    }
}
