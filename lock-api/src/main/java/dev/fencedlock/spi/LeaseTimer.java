package dev.fencedlock.spi;

import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timed tasks of one runtime's leases (renewals and expiry checks), kept in a queue of their own
 * behind a single wake-up armed on the runtime's scheduler for the earliest of them.
 *
 * <p>Why not {@code scheduler.schedule} per task: a {@link java.util.concurrent.ScheduledThreadPoolExecutor}
 * wakes one of its threads whenever a new task is due before every task it already holds. A lease
 * released soon after its grant (the common case) schedules a task and cancels it, so with no older
 * lease pending every grant would wake a scheduler thread: about as much CPU per acquire-and-release
 * as the acquiring thread's own on a two-core machine (docs/benchmarks.md). Here a new task arms the
 * wake-up only when it is due before the one armed, so a stream of short leases arms it about once
 * per renewal period.
 *
 * <p>The contract is that of {@link ScheduledExecutorService#schedule}: a task
 * runs on the scheduler no earlier than its delay after {@link #schedule} (on {@link
 * System#nanoTime()}, the scheduler's own clock), tasks due together may run in parallel, and a task
 * cancelled before it started never runs. When the scheduler is shut down, tasks not yet run never
 * run. Thread-safe.
 */
final class LeaseTimer {
    private static final Logger log = LoggerFactory.getLogger(LeaseTimer.class);

    private final ScheduledExecutorService scheduler;
    private final ConcurrentSkipListSet<Task> pending = new ConcurrentSkipListSet<>();
    private final AtomicLong sequence = new AtomicLong();
    private final Object wakeGuard = new Object();
    private ScheduledFuture<?> wake; // guarded by wakeGuard
    private long wakeAtNanos; // guarded by wakeGuard; when wake runs, on System.nanoTime()

    LeaseTimer(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * Runs {@code action} on the scheduler after {@code delayNanos}.
     *
     * @throws RejectedExecutionException if the scheduler is shut down
     */
    Task schedule(Runnable action, long delayNanos) {
        if (scheduler.isShutdown()) {
            throw new RejectedExecutionException("the lease scheduler is shut down");
        }
        Task task = new Task(action, System.nanoTime() + Math.max(0, delayNanos), sequence.incrementAndGet());
        pending.add(task);
        try {
            armFor(task.dueNanos);
        } catch (RejectedExecutionException e) {
            pending.remove(task);
            throw e;
        }
        return task;
    }

    /** How many tasks wait for their time (cancelled ones are not counted). */
    int pending() {
        return pending.size();
    }

    /** The wake-up armed on the scheduler, or null; for tests that tell it apart from due work. */
    ScheduledFuture<?> armedWake() {
        synchronized (wakeGuard) {
            return wake;
        }
    }

    /**
     * Makes sure a wake-up runs at or before {@code dueNanos}, after the task due then was added to
     * {@link #pending}. A wake-up armed for later is replaced; one whose time has come may already have
     * looked at the queue, so a new one is armed beside it.
     */
    private void armFor(long dueNanos) {
        synchronized (wakeGuard) {
            long now = System.nanoTime();
            boolean armedAhead = wake != null && wakeAtNanos - now > 0;
            if (armedAhead && wakeAtNanos - dueNanos <= 0) {
                return; // not started yet (its time has not come), and it will find the task
            }
            if (armedAhead) {
                wake.cancel(false);
            }
            wake = scheduler.schedule(this::fire, Math.max(0, dueNanos - now), TimeUnit.NANOSECONDS);
            wakeAtNanos = dueNanos;
        }
    }

    /** The wake-up: hands every due task to the scheduler's threads, then arms for the next one. */
    private void fire() {
        long now = System.nanoTime();
        try {
            while (true) {
                Task first = firstOrNull();
                if (first == null) {
                    return;
                }
                if (first.dueNanos - now > 0) {
                    armFor(first.dueNanos);
                    return;
                }
                if (pending.remove(first)) {
                    scheduler.execute(first);
                }
            }
        } catch (RejectedExecutionException e) {
            // shut down: tasks not yet run never run, as with the scheduler's own delayed tasks
        }
    }

    private Task firstOrNull() {
        try {
            return pending.first();
        } catch (NoSuchElementException e) {
            return null; // emptied meanwhile
        }
    }

    /** One timed task; {@link #cancel()} before it starts keeps it from running. */
    final class Task implements Runnable, Comparable<Task> {
        private final Runnable action;
        private final long dueNanos;
        private final long order;
        private volatile boolean cancelled;

        private Task(Runnable action, long dueNanos, long order) {
            this.action = action;
            this.dueNanos = dueNanos;
            this.order = order;
        }

        /** Keeps the task from running if it has not started. Idempotent. */
        void cancel() {
            cancelled = true;
            pending.remove(this);
        }

        @Override
        public void run() {
            if (cancelled) {
                return;
            }
            try {
                action.run();
            } catch (RuntimeException e) {
                log.warn("A lease task failed unexpectedly", e);
            }
        }

        @Override
        public int compareTo(Task other) {
            long byTime = dueNanos - other.dueNanos;
            if (byTime != 0) {
                return byTime < 0 ? -1 : 1;
            }
            return Long.compare(order, other.order);
        }
    }
}
