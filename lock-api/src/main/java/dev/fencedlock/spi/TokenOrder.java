package dev.fencedlock.spi;

/**
 * The one order of fencing tokens that every backend follows, so that tokens of one lock name are
 * comparable whatever backend issued them (a deployment that switches {@code fencedlock.backend},
 * a fallback backend, an ensemble rebuilt from scratch).
 *
 * <p>The rule: a token for a grant made when the granting side's wall clock reads {@code t}
 * milliseconds since the epoch is
 *
 * <pre>
 *   next = max(t &lt;&lt; 16, previous + 1)
 * </pre>
 *
 * <p>where {@code previous} is the largest token that backend issued earlier for the same lock
 * name (0 if none). The high bits are wall-clock milliseconds; the low {@value #SEQUENCE_BITS}
 * bits leave room for many grants within one millisecond. Within one backend, tokens are strictly
 * increasing by the {@code previous + 1} term alone, whatever the clocks do. Across backends,
 * only the {@code t << 16} term carries order, and that rests on an assumption:
 *
 * <p><b>Clock assumption.</b> The wall clocks of the granting sides (Redlock clients, the
 * ZooKeeper leader) are within {@code ε} of true time, a grant by one backend comes more than
 * {@code 2ε + 1 ms} after the last grant of the same lock name by another backend, and no backend
 * issues 65,536 or more tokens of one lock name per millisecond on average (so the sequence bits
 * never carry into the clock part, and a token issued at clock reading {@code t} is below {@code
 * (t + 1) << 16}). Then the later backend's first token is at least {@code (t_old + 1) << 16}, above
 * every token the earlier backend issued. NTP-synchronised hosts (ε of milliseconds) and
 * deployments that switch backends over seconds meet this by orders of magnitude. A backend may
 * read {@code t} when the grant's contender joins a queue rather than when it is granted (the
 * {@code zookeeper} backend records the token with the contender's lock node); the assumption's
 * gap then counts from that moment, so a contender that joined before the other backend's last
 * grant may carry a lower token, whose writes the fence refuses.
 *
 * <p><b>When it breaks.</b> A granting clock that runs behind the earlier backend's by more than the
 * gap between the two grants issues tokens below earlier ones, until its clock passes theirs. Such
 * a token never makes a stale write succeed: the fence where the data lives (for example {@code
 * fencing-jdbc}'s fence row) has already seen the larger token and refuses the new holder's writes
 * as stale. The failure is refused writes (liveness), never a lost update (safety). A clock that
 * runs ahead does no harm to order; it only moves later tokens up.
 *
 * <p>Thread-safe (stateless).
 */
public final class TokenOrder {
    /** Low bits of a token that count grants within one millisecond. */
    public static final int SEQUENCE_BITS = 16;

    /** The largest wall-clock reading a token can carry: the year 6429. */
    public static final long MAX_EPOCH_MILLIS = Long.MAX_VALUE >>> SEQUENCE_BITS;

    private TokenOrder() {}

    /**
     * The smallest token a grant may carry when the granting side's wall clock reads {@code
     * epochMillis}: {@code epochMillis << 16}.
     *
     * @throws IllegalArgumentException if {@code epochMillis} is negative or above {@link
     *     #MAX_EPOCH_MILLIS}
     */
    public static long floor(long epochMillis) {
        if (epochMillis < 0 || epochMillis > MAX_EPOCH_MILLIS) {
            throw new IllegalArgumentException(
                    "epochMillis must be between 0 and " + MAX_EPOCH_MILLIS + ", got " + epochMillis);
        }
        return epochMillis << SEQUENCE_BITS;
    }

    /**
     * The token for a grant at wall-clock reading {@code epochMillis} after a grant with token
     * {@code previous}: {@code max(floor(epochMillis), previous + 1)}.
     *
     * @param previous the largest token issued earlier for the lock name; 0 if none
     * @throws IllegalArgumentException if {@code previous} is negative or {@link Long#MAX_VALUE}
     *     (no larger token exists: a corrupt record, never one this rule produced), or {@code
     *     epochMillis} is out of range as for {@link #floor}
     */
    public static long next(long previous, long epochMillis) {
        if (previous < 0 || previous == Long.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "previous token must be between 0 and " + (Long.MAX_VALUE - 1) + ", got " + previous);
        }
        return Math.max(floor(epochMillis), previous + 1);
    }

    /** The wall-clock millisecond a token's high bits carry. */
    public static long epochMillis(long token) {
        return token >>> SEQUENCE_BITS;
    }
}
