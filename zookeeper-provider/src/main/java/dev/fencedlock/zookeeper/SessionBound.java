package dev.fencedlock.zookeeper;

import java.time.Duration;

/**
 * How long one answer from the server vouches for a lock node, and how long to wait for one.
 *
 * <p>A ZooKeeper server expires a session when it has heard nothing from the client for the
 * negotiated session timeout, counted from the last request it received (and rounded up to its
 * tick). So once a request sent at time {@code t} is answered, the session, and its ephemeral lock
 * node, cannot be expired by the server before {@code t + sessionTimeout}, whatever happens to the
 * client afterwards: a process that stops (GC, SIGSTOP, a frozen VM) still knows that its grant
 * ends then, without hearing anything from Curator. The client measures {@code t} before handing
 * the request over, so its {@code t} is never later than the real send. The bound is the session
 * timeout less a drift allowance, as in Redlock: 1% of the timeout plus 2 ms, for clock-rate
 * differences between the client and the server.
 *
 * <p>Thread-safe (stateless).
 */
final class SessionBound {
    static final double DRIFT_FACTOR = 0.01;
    static final long MIN_DRIFT_NANOS = 2_000_000L;

    /**
     * The fraction of the session timeout that one request may take before the caller gives up on
     * it. ZooKeeper's own client gives up only after two thirds of the session timeout of silence;
     * a quarter leaves a renewal that gave up time to try again within its validity, and frees the
     * shared lease scheduler thread sooner.
     */
    static final int REQUEST_TIMEOUT_DIVISOR = 4;

    private SessionBound() {}

    /**
     * How long after sending a request that the server answered the session is known to live.
     *
     * @throws IllegalArgumentException if {@code sessionTimeoutMs} is not positive (no session)
     */
    static long validityNanos(int sessionTimeoutMs) {
        long timeout = timeoutNanos(sessionTimeoutMs);
        return timeout - (long) (timeout * DRIFT_FACTOR) - MIN_DRIFT_NANOS;
    }

    /** How long one request to the server may take before the caller stops waiting for it. */
    static long requestTimeoutNanos(int sessionTimeoutMs) {
        return timeoutNanos(sessionTimeoutMs) / REQUEST_TIMEOUT_DIVISOR;
    }

    /**
     * How often a lease is checked with the server: every third of the lease time or of the
     * session bound, whichever is shorter, and at least every millisecond apart.
     */
    static long checkPeriodNanos(long leaseNanos, int sessionTimeoutMs) {
        return Math.max(1_000_000L, Math.min(leaseNanos, validityNanos(sessionTimeoutMs)) / 3);
    }

    /** {@code duration} in nanoseconds, capped far below overflow for lease times of centuries. */
    static long nanos(Duration duration) {
        try {
            return Math.min(duration.toNanos(), Long.MAX_VALUE / 4);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }

    private static long timeoutNanos(int sessionTimeoutMs) {
        if (sessionTimeoutMs <= 0) {
            throw new IllegalArgumentException("session timeout must be positive, got " + sessionTimeoutMs + "ms");
        }
        return sessionTimeoutMs * 1_000_000L;
    }
}
