package dev.fencedlock.redlock.internal;

import dev.fencedlock.LockConfig;
import dev.fencedlock.internal.config.DurationFormat;
import dev.fencedlock.redlock.RedlockSettings;
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
 *   <li>Without it, the quarantine is the longest lease time this client has used (its configured
 *       lease time, or a longer fixed lease or extension) <i>or heard of</i>: every acquisition and
 *       extension raises each node's record of the longest lease asked of it ({@link
 *       dev.fencedlock.redlock.RedlockKeys#LONGEST_LEASE}), and every acquisition reads the records
 *       of all nodes that answer before it judges any of them. So a client with short leases keeps a
 *       restarted node out for another client's longer lease as long as it heard of that lease from
 *       some node that kept its data: a node that answered that lease's acquisition, or any node one
 *       of its extensions reached. A fresh cluster has no record and is usable at once (after its
 *       nodes have been up for the client's own lease time). What this default cannot cover: a
 *       client that is cut off from every node that saw the longer lease, yet reaches a majority with
 *       the restarted node in it; deployments that mix lease times and want no such assumption
 *       configure the quarantine to the longest lease any client uses.
 * </ul>
 *
 * <p>Thread-safe.
 */
final class Quarantine {
    private static final Logger log = LoggerFactory.getLogger(Quarantine.class);

    private final Duration configured;
    private final Duration leaseTime;
    private final boolean enforced;
    private final boolean trustPersistentNodes;
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
        this(configured, leaseTime, enforced, false);
    }

    /**
     * @param trustPersistentNodes whether a node that says it fsyncs every write to its
     *     append-only file ({@link RedisInstance#persistsEveryWrite()}) needs no quarantine
     */
    Quarantine(Duration configured, Duration leaseTime, boolean enforced, boolean trustPersistentNodes) {
        this.trustPersistentNodes = trustPersistentNodes;
        this.configured = configured;
        this.leaseTime = leaseTime;
        this.enforced = enforced;
        this.longestLeaseNanos = new AtomicLong(saturatedNanos(leaseTime));
        if (enforced && configured != null && leaseTime.compareTo(configured) > 0) {
            throw new IllegalArgumentException(LockConfig.LEASE_TIME + " " + DurationFormat.format(leaseTime)
                    + " is longer than " + RedlockSettings.RESTART_QUARANTINE + " "
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
                        + " is longer than " + RedlockSettings.RESTART_QUARANTINE + " "
                        + DurationFormat.format(configured) + ": " + consequence(configured));
            }
            return;
        }
        long nanos = saturatedNanos(lease);
        if (nanos > longestLeaseNanos.get()) {
            longestLeaseNanos.accumulateAndGet(nanos, Math::max);
            if (lease.compareTo(leaseTime) > 0 && warned.compareAndSet(false, true)) {
                log.warn(
                        "The {} of {} is longer than {} {} and {} is not set: restarted nodes now stay out of the"
                                + " quorum for {}; other clients learn this lease from the nodes' record of the longest"
                                + " lease, unless they reach none of the nodes that saw it. Set {} to the longest"
                                + " lease any client uses to depend on no such record. (Logged once.)",
                        what,
                        DurationFormat.format(lease),
                        LockConfig.LEASE_TIME,
                        DurationFormat.format(leaseTime),
                        RedlockSettings.RESTART_QUARANTINE,
                        DurationFormat.format(lease),
                        RedlockSettings.RESTART_QUARANTINE);
            }
        }
    }

    /** Takes in a node's record of the longest lease asked of it, in milliseconds. */
    void hearLongestLease(long millis) {
        if (configured != null || millis <= 0) {
            return;
        }
        long nanos = millis > Long.MAX_VALUE / 4_000_000L ? Long.MAX_VALUE / 4 : millis * 1_000_000L;
        if (nanos > longestLeaseNanos.get()) {
            long before = longestLeaseNanos.getAndAccumulate(nanos, Math::max);
            if (nanos > before) {
                log.info(
                        "A Redis node records a lease of {} ms, longer than this client's: restarted nodes now stay"
                                + " out of the quorum for that long",
                        millis);
            }
        }
    }

    /**
     * The quarantine of {@code instance}: none if persistent nodes are trusted and it says it
     * persists every write before answering (it then comes back from a restart with every lock key
     * it granted); otherwise {@link #nanos()}. Each node is judged by what it says itself, so a
     * cluster with one node that does not persist so keeps that node, and only that node, in
     * quarantine after its restarts.
     */
    long nanosFor(RedisInstance instance) {
        return trustPersistentNodes && instance.persistsEveryWrite() ? 0 : nanos();
    }

    long nanos() {
        return configured != null ? saturatedNanos(configured) : longestLeaseNanos.get();
    }

    private static String consequence(Duration configured) {
        return "a node that restarted empty would count again while the lease is still held on the other "
                + "nodes. Use leases of at most " + DurationFormat.format(configured) + " or raise "
                + RedlockSettings.RESTART_QUARANTINE + " to the longest lease any client uses";
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }
}
