package dev.fencedlock.zookeeper;

import java.time.Duration;

/**
 * How long one answer from the server vouches for a lock node, and how long to wait for one.
 *
 * <p>ZooKeeper's leader expires a session when it has heard of no request of it for the
 * negotiated session timeout (rounded up to its tick). A client connected to the leader is heard
 * at once. A client connected to a follower is heard late: the follower tells the leader which
 * sessions it heard from in its replies to the leader's pings, which come every half tick; a
 * follower cut off from the leader tells it nothing more, yet goes on answering plain reads for
 * {@code tickTime x syncLimit} (10 s with stock settings), while the leader expires the session
 * and hands the lock on. So an ownership check is a {@code sync} followed by the read ({@link
 * LockNodes}): an answer shows that the follower reached the leader after the check was sent.
 * Once a check sent at {@code t} is answered, the leader has heard of every request of the
 * session that reached the follower half a tick before {@code t} or earlier, and the session
 * sends one at least every third of the timeout (the ZooKeeper client pings when idle that long).
 * So the leader cannot expire the session before {@code t + timeout - tick/2 - timeout/3}.
 *
 * <p><b>Assumption:</b> the tick is at most half the negotiated session timeout. ZooKeeper makes
 * it so unless its {@code minSessionTimeout} is configured below the default of two ticks; such a
 * setting breaks the bound. With it, the bound is {@code timeout - timeout/4 - timeout/3}, five
 * twelfths of the session timeout, less a drift allowance as in Redlock (1% of the timeout plus 2
 * ms) for clock-rate differences between the client and the servers. The client measures {@code
 * t} before handing the request over, so its {@code t} is never later than the real send.
 *
 * <p>The bound is measured on the client's monotonic clock. It holds through a stopped process
 * (a GC pause, SIGSTOP): the monotonic clock runs on while the process does not, so a grant ends
 * on time however long the process was stopped. It does not hold where the monotonic clock itself
 * stops: a suspended host, or a VM whose hypervisor hides the time it was paused from the guest's
 * monotonic clock. After such a freeze a lease may look valid for up to the bound although the
 * server expired its session and handed the lock on meanwhile (until the client hears of the
 * expiry); only the fencing token keeps data safe then.
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
     * How long after sending a check that the server answered the session is known to live: five
     * twelfths of the session timeout, less the drift allowance (see the class description).
     *
     * @throws IllegalArgumentException if {@code sessionTimeoutMs} is not positive (no session)
     */
    static long validityNanos(int sessionTimeoutMs) {
        long timeout = timeoutNanos(sessionTimeoutMs);
        return outstandingNanos(sessionTimeoutMs) - (long) (timeout * DRIFT_FACTOR) - MIN_DRIFT_NANOS;
    }

    /**
     * The session bound before the drift allowance is taken off: five twelfths of the session
     * timeout. No answer of the server vouches for a lease longer than {@link #validityNanos}, so no
     * lease of a session with this timeout is valid longer than this after the server's last answer
     * to it, measured on any clock whose rate is within the drift allowance of the holder's.
     */
    static long outstandingNanos(int sessionTimeoutMs) {
        long timeout = timeoutNanos(sessionTimeoutMs);
        long unreported = timeout / 4 + timeout / 3;
        return timeout - unreported;
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
