package dev.fencedlock.redlock.internal;

import dev.fencedlock.LockConfig;
import dev.fencedlock.internal.config.DurationFormat;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long a restarted node stays out of the quorum, and which lease times that allows.
 *
 * <p>A node that restarted empty must stay out of every client's quorum for as long as any lease it
 * granted may still be held on the other nodes, that is for the longest lease of any client. So:
 *
 * <ul>
 *   <li>With {@code fencedlock.redlock.restart-quarantine} configured, no lease may be longer than
 *       it: a client lease time, fixed lease or extension that is longer is rejected with an {@link
 *       IllegalArgumentException} before any node is asked.
 *   <li>Without it, the quarantine is the longest lease time <i>this client</i> has used (its
 *       configured lease time, or a longer fixed lease or extension). Other clients cannot know that
 *       lease: one whose leases are shorter counts a restarted node again while this client's lease
 *       still rests on the other nodes. The first lease longer than the client's configured lease time
 *       is therefore logged once as a warning; deployments that mix lease times should configure the
 *       quarantine to the longest lease any client uses.
 * </ul>
 *
 * <p>Thread-safe.
 */
final class Quarantine {
    private static final Logger log = LoggerFactory.getLogger(Quarantine.class);

    private final Duration configured;
    private final Duration leaseTime;
    private final boolean enforced;
    private final AtomicLong longestLeaseNanos;
    private final AtomicBoolean warned = new AtomicBoolean();

    /**
     * @param configured the configured quarantine, or null to follow the longest lease
     * @param leaseTime the client's default lease time
     * @param enforced whether leases longer than a configured quarantine are rejected; only tests on
     *     just-started servers turn this off, to use a tiny quarantine with ordinary leases
     * @throws IllegalArgumentException if the quarantine is configured, enforced and shorter than
     *     {@code leaseTime}
     */
    Quarantine(Duration configured, Duration leaseTime, boolean enforced) {
        this.configured = configured;
        this.leaseTime = leaseTime;
        this.enforced = enforced;
        this.longestLeaseNanos = new AtomicLong(saturatedNanos(leaseTime));
        if (enforced && configured != null && leaseTime.compareTo(configured) > 0) {
            throw new IllegalArgumentException(LockConfig.LEASE_TIME + " " + DurationFormat.format(leaseTime)
                    + " is longer than " + LockConfig.REDLOCK_RESTART_QUARANTINE + " "
                    + DurationFormat.format(configured) + ": " + consequence(configured));
        }
    }

    /**
     * Checks and records a lease time about to be used, before any node is asked for it.
     *
     * @param what the lease's kind and lock, for messages, e.g. {@code "fixed lease of lock 'x'"}
     * @throws IllegalArgumentException if a configured quarantine is shorter than {@code lease}
     */
    void noteLease(Duration lease, String what) {
        if (configured != null) {
            if (enforced && lease.compareTo(configured) > 0) {
                throw new IllegalArgumentException("The " + what + " of " + DurationFormat.format(lease)
                        + " is longer than " + LockConfig.REDLOCK_RESTART_QUARANTINE + " "
                        + DurationFormat.format(configured) + ": " + consequence(configured));
            }
            return;
        }
        long nanos = saturatedNanos(lease);
        if (nanos > longestLeaseNanos.get()) {
            longestLeaseNanos.accumulateAndGet(nanos, Math::max);
            if (lease.compareTo(leaseTime) > 0 && warned.compareAndSet(false, true)) {
                log.warn(
                        "The {} of {} is longer than {} {} and {} is not set: this client now keeps a restarted "
                                + "node out of the quorum for {}, but clients with shorter leases keep it out only "
                                + "for their own longest lease and may count it while this lease still rests on the "
                                + "other nodes. Set {} to the longest lease any client uses. (Logged once.)",
                        what,
                        DurationFormat.format(lease),
                        LockConfig.LEASE_TIME,
                        DurationFormat.format(leaseTime),
                        LockConfig.REDLOCK_RESTART_QUARANTINE,
                        DurationFormat.format(lease),
                        LockConfig.REDLOCK_RESTART_QUARANTINE);
            }
        }
    }

    long nanos() {
        return configured != null ? saturatedNanos(configured) : longestLeaseNanos.get();
    }

    private static String consequence(Duration configured) {
        return "a node that restarted empty would count again while the lease is still held on the other "
                + "nodes. Use leases of at most " + DurationFormat.format(configured) + " or raise "
                + LockConfig.REDLOCK_RESTART_QUARANTINE + " to the longest lease any client uses";
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }
}
