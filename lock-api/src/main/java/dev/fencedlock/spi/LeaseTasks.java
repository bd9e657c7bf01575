package dev.fencedlock.spi;

import java.util.concurrent.RejectedExecutionException;

/**
 * The two timed tasks of one lease on its runtime's {@link LeaseTimer}: the next renewal and the
 * watchdog, the expiry check due just after validity ends. At most one of each is pending: a new
 * one replaces the one pending. Once the runtime is shut down, nothing is scheduled any more.
 * Thread-safe.
 */
final class LeaseTasks {
    /** How long after the end of validity the watchdog looks, so that it finds the end passed. */
    static final long WATCHDOG_SLACK_NANOS = 500_000L;

    private final LeaseTimer timer;
    private final MonotonicClock clock;
    private final LeaseState state;
    private final Runnable renewal;
    private final Runnable watchdog;
    private final Object guard = new Object();
    private LeaseTimer.Task renewalTask; // guarded by guard
    private LeaseTimer.Task watchdogTask; // guarded by guard; null until the watchdog first starts
    private long watchdogDueNanos; // guarded by guard

    /**
     * @param renewal what the renewal task runs
     * @param watchdog what the watchdog runs
     */
    LeaseTasks(LeaseTimer timer, MonotonicClock clock, LeaseState state, Runnable renewal, Runnable watchdog) {
        this.timer = timer;
        this.clock = clock;
        this.state = state;
        this.renewal = renewal;
        this.watchdog = watchdog;
    }

    /** Schedules the next renewal after {@code delayNanos}, replacing any pending one. */
    void scheduleRenewal(long delayNanos) {
        synchronized (guard) {
            cancel(renewalTask);
            renewalTask = schedule(renewal, delayNanos);
        }
    }

    /** Cancels the pending renewal for good and makes sure the watchdog runs instead of it. */
    void stopRenewal() {
        synchronized (guard) {
            cancel(renewalTask);
            ensureWatchdog(); // the renewal that would have started it will not run
        }
    }

    /** Schedules the watchdog just after validity ends, replacing any pending one. */
    void scheduleWatchdog() {
        synchronized (guard) {
            cancel(watchdogTask);
            long now = clock.nanoTime();
            long delay = Math.max(0, state.validUntilNanos() - now) + WATCHDOG_SLACK_NANOS;
            watchdogDueNanos = now + delay;
            watchdogTask = schedule(watchdog, delay);
        }
    }

    /**
     * Starts the watchdog of a held lease if it never started. An auto-renewing lease starts it late,
     * on its first renewal (or when renewal stops), which is due before its validity ends: most
     * leases are closed sooner and never schedule it, one task per grant instead of two.
     */
    void ensureWatchdog() {
        synchronized (guard) {
            if (watchdogTask == null && state.isHeld()) {
                scheduleWatchdog();
            }
        }
    }

    /**
     * Brings a started watchdog forward when validity now ends before it looks (an extension to a
     * shorter time, or a renewal back to the lease time after a longer extension), so that the loss
     * comes when validity ends.
     */
    void followValidity(long validUntilNanos) {
        boolean earlier;
        synchronized (guard) {
            earlier = watchdogTask != null && watchdogDueNanos - (validUntilNanos + WATCHDOG_SLACK_NANOS) > 0;
        }
        if (earlier) {
            scheduleWatchdog();
        }
    }

    /** Cancels both tasks; they do not run unless scheduled again. */
    void cancelAll() {
        synchronized (guard) {
            cancel(renewalTask);
            cancel(watchdogTask);
        }
    }

    private LeaseTimer.Task schedule(Runnable task, long delayNanos) {
        try {
            return timer.schedule(task, delayNanos);
        } catch (RejectedExecutionException e) {
            return null; // the runtime is closing: its leases are released without renewal
        }
    }

    private static void cancel(LeaseTimer.Task task) {
        if (task != null) {
            task.cancel();
        }
    }
}
