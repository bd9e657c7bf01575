package dev.fencedlock;

import java.time.Duration;

/**
 * Observes one client's lock activity, for metrics and logs. Register it with {@link
 * LockClient#create(LockConfig, LockEventListener)}.
 *
 * <p>Methods run on the calling thread or on fencedlock's own threads and must return quickly; an
 * exception thrown by a listener is logged and ignored. Lock names are passed for logs: they are
 * unbounded, so never use them as metric tags. Backend names ({@code redlock}, {@code zookeeper},
 * ...) and the enums are bounded.
 *
 * <p>Lease events come from leases built on {@link dev.fencedlock.spi.AbstractLease}, which every
 * backend of this project uses.
 */
public interface LockEventListener {

    /** How one call of an acquire method ended. */
    enum AcquireOutcome {
        /** A lease was granted. */
        ACQUIRED,
        /** {@code tryAcquire} came back empty: the lock stayed taken for the whole wait. */
        NOT_ACQUIRED,
        /** {@code acquire} threw {@link LockTimeoutException}. */
        TIMEOUT,
        /** The backend could not answer ({@link LockUnavailableException}). */
        UNAVAILABLE,
        /** The waiting thread was interrupted. */
        INTERRUPTED,
        /** Any other exception, bad arguments and a closed client included. */
        FAILED
    }

    /**
     * One call of {@link FencedLock#acquire} or {@link FencedLock#tryAcquire} ended.
     *
     * @param backend the backend that granted the lease, or the last one asked
     * @param elapsed the call's duration on the monotonic clock
     */
    default void acquireFinished(String lockName, String backend, AcquireOutcome outcome, Duration elapsed) {}

    /** A lease became active, before the acquire call returns it. */
    default void leaseGranted(Lease lease) {}

    /** A granted lease was closed or lost; called exactly once per lease {@link #leaseGranted} reported. */
    default void leaseEnded(Lease lease) {}

    /** A lease was lost; {@code cause.reason()} says why. Followed by {@link #leaseEnded}. */
    default void leaseLost(Lease lease, LeaseLostException cause) {}

    /**
     * Acquisitions moved between the configured backend and {@code fencedlock.fallback}: once per
     * switch of the client, reported with the lock whose acquisition noticed it. To the fallback:
     * when the primary failed, although with {@code fencedlock.fallback-takeover=wait-out} the
     * fallback grants only after the primary's leases ran out; back: when the first acquisition is
     * routed to the primary again (see "The fallback, and when not to use it" on {@link
     * LockConfig}).
     *
     * @param cause why the primary was left; null when returning to the primary
     */
    default void backendSwitched(String lockName, String from, String to, LockException cause) {}
}
