package dev.fencedlock;

import java.time.Duration;
import java.util.Optional;

/**
 * A named distributed lock whose every grant carries a fencing token (see {@link Lease} for why).
 *
 * <p>Acquisition is not reentrant: a second acquire of a lock that is already held waits like any
 * other contender, also when it comes from the thread that holds the lock. Waiting honours thread
 * interruption.
 *
 * <p>Thread-safety: instances are safe for use from many threads at once and are cheap; obtain
 * them with {@link LockClient#lock(String)}. Every acquire method throws {@link
 * IllegalStateException} once the client that made the lock is closed.
 */
public interface FencedLock {

    /** The lock's name, as given to {@link LockClient#lock(String)}. */
    String name();

    /**
     * Waits up to {@code wait} for the lock and returns an auto-renewing lease with the configured
     * {@code fencedlock.lease-time}.
     *
     * @param wait how long to wait; {@link Duration#ZERO} makes a single attempt
     * @throws IllegalArgumentException if {@code wait} is null or negative
     * @throws LockTimeoutException if the lock stayed taken for the whole wait
     * @throws LockUnavailableException if the backend could not answer
     * @throws InterruptedException if the thread was interrupted while waiting; nothing is held
     */
    Lease acquire(Duration wait) throws InterruptedException;

    /**
     * Waits up to {@code wait} for the lock and returns a fixed lease of {@code leaseTime} that is
     * never renewed automatically (use {@link Lease#extend}).
     *
     * @throws IllegalArgumentException if {@code wait} is null or negative, or {@code leaseTime}
     *     is null, zero or negative
     * @throws LockTimeoutException if the lock stayed taken for the whole wait
     * @throws LockUnavailableException if the backend could not answer
     * @throws InterruptedException if the thread was interrupted while waiting; nothing is held
     */
    Lease acquire(Duration wait, Duration leaseTime) throws InterruptedException;

    /**
     * Like {@link #acquire(Duration)}, but losing the race is not an error.
     *
     * @return the auto-renewing lease, or empty if the lock stayed taken for the whole wait
     * @throws LockUnavailableException if the backend could not answer
     * @throws InterruptedException if the thread was interrupted while waiting; nothing is held
     */
    Optional<Lease> tryAcquire(Duration wait) throws InterruptedException;

    /**
     * Like {@link #acquire(Duration, Duration)}, but losing the race is not an error.
     *
     * @return the fixed lease, or empty if the lock stayed taken for the whole wait (and only then)
     * @throws IllegalArgumentException if {@code leaseTime} is not positive, or no longer than the
     *     clock-drift allowance the backend takes off every lease (so never valid); the message
     *     names the backend's smallest lease
     * @throws LockException if the lock was won but {@code leaseTime} ran out before the grant
     *     could be handed out (a lease shorter than the backend's round trip)
     * @throws LockUnavailableException if the backend could not answer
     * @throws InterruptedException if the thread was interrupted while waiting; nothing is held
     */
    Optional<Lease> tryAcquire(Duration wait, Duration leaseTime) throws InterruptedException;
}
