package dev.fencedlock.redlock.internal;

/**
 * The Redlock validity arithmetic, on nanoseconds of the monotonic clock:
 * {@code validity = ttl - elapsed - (ttl * driftFactor + 2 ms)}. The drift term covers clock-rate
 * differences between the client and the nodes (Redis expires keys on its own clock) plus the
 * millisecond granularity of {@code PX}.
 */
final class Validity {
    static final long MIN_DRIFT_NANOS = 2_000_000L;

    private Validity() {}

    /** The allowance subtracted from every validity. */
    static long driftNanos(long ttlNanos, double driftFactor) {
        return (long) (ttlNanos * driftFactor) + MIN_DRIFT_NANOS;
    }

    /**
     * Validity left once the nodes answered: positive means the grant may be used for that long
     * after {@code elapsedNanos} since the first request was sent; zero or negative means the grant
     * must be released and counts as a failure.
     */
    static long remainingNanos(long ttlNanos, long elapsedNanos, double driftFactor) {
        return ttlNanos - elapsedNanos - driftNanos(ttlNanos, driftFactor);
    }
}
