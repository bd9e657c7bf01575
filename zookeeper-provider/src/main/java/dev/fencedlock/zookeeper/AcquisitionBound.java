package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.LeaseRequest;
import dev.fencedlock.spi.MonotonicClock;
import java.util.concurrent.TimeUnit;

/**
 * The time limits of one acquisition: the caller's wait, and one operation timeout past it.
 *
 * <ul>
 *   <li>Waiting in line for the lock ends at the caller's deadline ({@link #lineWaitNanos}).
 *   <li>Each request to the server, and each wait for a connection, ends at the earlier of one
 *       operation timeout from its start and the <i>hard deadline</i>, the caller's deadline plus
 *       one operation timeout ({@link #requestWaitNanos}).
 * </ul>
 *
 * <p>So an acquisition returns or throws by the hard deadline whatever the server does, plus the
 * time to notice (a thread woken from a timed wait), and a {@code tryAcquire(ZERO)} makes one
 * attempt of at most one operation timeout. Nothing here waits: it only tells how long a wait may
 * be.
 *
 * <p>Confined to the acquiring thread.
 */
final class AcquisitionBound {
    private final MonotonicClock clock;
    private final long deadlineNanos;
    private final long hardDeadlineNanos;
    private final long operationTimeoutNanos;

    AcquisitionBound(LeaseRequest request, long operationTimeoutNanos, MonotonicClock clock) {
        this.clock = clock;
        this.deadlineNanos = request.deadlineNanos();
        this.operationTimeoutNanos = operationTimeoutNanos;
        this.hardDeadlineNanos = request.deadlineNanos() + operationTimeoutNanos;
    }

    /** How long the next request may wait for its answer (or for a connection); 0 once spent. */
    long requestWaitNanos() {
        return Math.max(0, Math.min(operationTimeoutNanos, hardDeadlineNanos - clock.nanoTime()));
    }

    /** How long the acquisition may still wait in line; 0 once the caller's wait is spent. */
    long lineWaitNanos() {
        return Math.max(0, deadlineNanos - clock.nanoTime());
    }

    /** Whether the caller's wait has time left for another attempt. */
    boolean waitLeft() {
        return deadlineNanos - clock.nanoTime() > 0;
    }

    long operationTimeoutMillis() {
        return TimeUnit.NANOSECONDS.toMillis(operationTimeoutNanos);
    }
}
