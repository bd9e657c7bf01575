package dev.fencedlock.redlock.internal;

import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.DurationFormat;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * How long a restarted node stays out of the quorum, and which lease times that allows.
 *
 * <p>A node that restarted empty must stay out of every client's quorum for as long as a lease it
 * granted before the restart may still be valid on the other nodes. Three ways to size that:
 *
 * <ul>
 *   <li><b>Follow what can be outstanding</b> (the default, {@code
 *       fencedlock.redlock.restart-quarantine} unset). Every node keeps a record of the leases live
 *       on it ({@link dev.fencedlock.redlock.RedlockKeys}: expiry and length per lock key, added on
 *       grant and extension, removed on release and expiry), and every acquisition and release
 *       reports it: how long the longest-lived live lease still runs ({@code remaining}) and the
 *       longest lease time among them ({@code longest}). This client keeps, per node, the last such
 *       reading (plus its own grants and extensions since), and across a restart of that node what
 *       the previous incarnation said, until it has run out. A node whose current incarnation
 *       started at {@code S} counts from
 *       <pre>
 *   max(S + leaseTime, min(H, S + L))
 *       </pre>
 *       where {@code H} is the latest end of a lease any reading still shows live and {@code L} the
 *       longest lease time among those. Why both: a lease last written (granted or extended) before
 *       {@code S} with lease time {@code l} ends before {@code S + l <= S + L}, and no later than
 *       {@code H}; a lease written after {@code S} without the restarted node needs no quarantine
 *       (its quorum holds it without that node), so {@code H} alone would keep a node out for as
 *       long as traffic lasts, and {@code S + L} caps it. {@code leaseTime} (the client's own {@code
 *       fencedlock.lease-time}) is the floor: a lease of that length may have been granted by a
 *       client like this one after this client's last reading. So a ten-minute lease keeps a
 *       restarted node out only while it is live: once released or expired, the next reading drops
 *       it. What this cannot cover: a lease longer than {@code leaseTime} granted after this
 *       client's last reading of every node that holds it, by a client with other settings;
 *       deployments that mix lease times and want no such assumption configure the quarantine.
 *   <li><b>Configured</b> (a positive {@code restart-quarantine}): that fixed time from {@code S},
 *       and no lease may be longer: a lease time, fixed lease or extension that is longer is
 *       rejected with an {@link IllegalArgumentException} before any node is asked.
 *   <li><b>Off</b> ({@code restart-quarantine=0s}): a node counts as soon as it answers. For
 *       development, and for deployments that rely on the fence alone: after a restart without
 *       persistence two holders of one lock may overlap, the older one's fenced writes refused.
 * </ul>
 *
 * <p>A node that persists every write before answering needs none of this when {@code
 * fencedlock.redlock.persistent-nodes} is set ({@link #none}).
 *
 * <p>A node's report about itself does not count toward its own quarantine: its current
 * incarnation holds those leases. What its earlier incarnations reported does (for one node, N=1,
 * that is all there is to know), and so does what every other node reports.
 *
 * <p>Thread-safe. Readings of one incarnation are ordered by the node's clock. An extension of
 * this client's is added to the node's reading when it succeeds; a reading the node took just
 * before that extension but handled after it replaces it until the next reading.
 */
final class Quarantine {
    private static final long NONE = Long.MIN_VALUE;

    private final Duration configured;
    private final Duration leaseTime;
    private final long floorNanos;
    private final boolean enforced;
    private final boolean trustPersistentNodes;
    private final AtomicReferenceArray<Reading> readings;

    /**
     * What this client last learned of the leases live on one node, as local monotonic instants:
     * {@code until} the end of the longest-lived one ({@link #NONE} if none), {@code longest} the
     * longest lease time among them, {@code nodeMicros} the node's clock in microseconds when it reported them
     * (orders the readings of one incarnation); {@code inheritedUntil} and {@code inheritedLongest}
     * the same of the node's earlier incarnations, kept until they run out.
     */
    private record Reading(
            String runId, long nodeMicros, long until, long longest, long inheritedUntil, long inheritedLongest) {
        static final Reading EMPTY = new Reading("", Long.MIN_VALUE, NONE, 0, NONE, 0);

        Reading replacedBy(String newRunId, long newNodeMicros, long newUntil, long newLongest, long now) {
            if (!runId.isEmpty() && !runId.equals(newRunId)) {
                // a new incarnation forgot what the old one held: keep that until it has run out
                long keptUntil = later(live(until, now), live(inheritedUntil, now));
                long keptLongest = Math.max(
                        live(until, now) != NONE ? longest : 0,
                        live(inheritedUntil, now) != NONE ? inheritedLongest : 0);
                return new Reading(newRunId, newNodeMicros, newUntil, newLongest, keptUntil, keptLongest);
            }
            if (newNodeMicros <= nodeMicros) {
                return this; // taken on the node before (or in the same microsecond as) the reading held
            }
            return new Reading(newRunId, newNodeMicros, newUntil, newLongest, inheritedUntil, inheritedLongest);
        }

        Reading with(long end, long length) {
            return new Reading(
                    runId, nodeMicros, later(until, end), Math.max(longest, length), inheritedUntil, inheritedLongest);
        }
    }

    private static long live(long until, long now) {
        return until != NONE && until - now > 0 ? until : NONE;
    }

    private static long later(long a, long b) {
        return a == NONE ? b : b == NONE ? a : Math.max(a, b);
    }

    /**
     * @param configured the configured quarantine, null to follow what can be outstanding, zero for none
     * @param leaseTime the client's default lease time, the floor when following
     * @param enforced whether leases longer than a configured quarantine are rejected; only tests on
     *     just-started servers turn this off, to use a tiny quarantine with ordinary leases
     * @param nodes how many nodes there are
     * @throws IllegalArgumentException if the quarantine is configured positive, enforced and shorter
     *     than {@code leaseTime}
     */
    Quarantine(Duration configured, Duration leaseTime, boolean enforced, boolean trustPersistentNodes, int nodes) {
        this.trustPersistentNodes = trustPersistentNodes;
        this.configured = configured;
        this.leaseTime = leaseTime;
        this.floorNanos = saturatedNanos(leaseTime);
        this.enforced = enforced;
        this.readings = new AtomicReferenceArray<>(nodes);
        for (int i = 0; i < nodes; i++) {
            readings.set(i, Reading.EMPTY);
        }
        if (enforcesLimit() && leaseTime.compareTo(configured) > 0) {
            throw new IllegalArgumentException(LockConfig.LEASE_TIME + " " + DurationFormat.format(leaseTime)
                    + " is longer than " + RedlockSettings.RESTART_QUARANTINE + " "
                    + DurationFormat.format(configured) + ": " + consequence(configured));
        }
    }

    private boolean enforcesLimit() {
        return enforced && configured != null && !configured.isZero();
    }

    /**
     * As {@link #noteLease(Duration, String)} with {@code what} = {@code kind + " of lock '" + lockName
     * + "'"}, the text made only for the exception (every acquire and extension comes through here).
     */
    void noteLease(Duration lease, String kind, String lockName) {
        if (enforcesLimit() && lease.compareTo(configured) > 0) {
            noteLease(lease, kind + " of lock '" + lockName + "'");
        }
    }

    /**
     * Checks a lease time about to be used, before any node is asked for it.
     *
     * @param what the lease's kind and lock, for messages, e.g. {@code "fixed lease of lock 'x'"}
     * @throws IllegalArgumentException if a configured quarantine is shorter than {@code lease}
     */
    void noteLease(Duration lease, String what) {
        if (enforcesLimit() && lease.compareTo(configured) > 0) {
            throw new IllegalArgumentException("The " + what + " of " + DurationFormat.format(lease)
                    + " is longer than " + RedlockSettings.RESTART_QUARANTINE + " "
                    + DurationFormat.format(configured) + ": " + consequence(configured));
        }
    }

    /**
     * Takes in node {@code node}'s report of its live leases, received at {@code readAt}. A report
     * the node made before the one held (by its own clock, {@code nodeMicros}) is ignored, so replies
     * handled out of order on different threads never bring back a released lease or drop a grant.
     *
     * @param runId the incarnation that reported
     * @param remainingMillis how long the longest-lived live lease still runs; 0 if none
     * @param longestMillis the longest lease time among the live leases
     */
    void hear(int node, String runId, long nodeMicros, long readAt, long remainingMillis, long longestMillis) {
        long until = remainingMillis > 0 ? readAt + saturatedMillisToNanos(remainingMillis) : NONE;
        long longest = remainingMillis > 0 ? saturatedMillisToNanos(longestMillis) : 0;
        readings.updateAndGet(node, r -> r.replacedBy(runId, nodeMicros, until, longest, readAt));
    }

    /** Node {@code node} granted or extended a lease of this client for {@code ttlNanos} at {@code at}. */
    void wrote(int node, long at, long ttlNanos) {
        readings.updateAndGet(node, r -> r.with(at + ttlNanos, ttlNanos));
    }

    /** Whether {@code instance} needs no quarantine: it is off, or the node persists every write. */
    boolean none(RedisInstance instance) {
        return (configured != null && configured.isZero()) || (trustPersistentNodes && instance.persistsEveryWrite());
    }

    /**
     * How long after its start ({@code startedAt}, monotonic) an incarnation begins to count,
     * judged with what is known at {@code now}; see the class description. Not meaningful when
     * {@link #none} holds.
     */
    long nanosAfterStart(int node, RedisInstance instance, long startedAt, long now) {
        if (configured != null) {
            return saturatedNanos(configured);
        }
        long[] outstanding = outstanding(now, node, instance.runId());
        if (outstanding[0] == NONE) {
            return floorNanos;
        }
        return Math.max(floorNanos, Math.min(outstanding[0] - startedAt, outstanding[1]));
    }

    /**
     * The longest a lease granted by the nodes may still be valid, from {@code now}: a configured
     * positive quarantine; otherwise the larger of the lease time and the longest-lived lease the
     * readings still show live. Never asks a node.
     */
    long outstandingNanos(long now) {
        if (configured != null && !configured.isZero()) {
            return saturatedNanos(configured);
        }
        long[] outstanding = outstanding(now, -1, "");
        return outstanding[0] == NONE ? floorNanos : Math.max(floorNanos, outstanding[0] - now);
    }

    /**
     * {H, L} of the class description, or {NONE, 0} when no reading shows a live lease. What node
     * {@code judged}'s incarnation {@code runId} reports of itself is left out: it holds those leases
     * and has not forgotten them. What its earlier incarnations held is not.
     */
    private long[] outstanding(long now, int judged, String runId) {
        long until = NONE;
        long longest = 0;
        for (int i = 0; i < readings.length(); i++) {
            Reading r = readings.get(i);
            if ((i != judged || !r.runId().equals(runId)) && live(r.until(), now) != NONE) {
                until = later(until, r.until());
                longest = Math.max(longest, r.longest());
            }
            if (live(r.inheritedUntil(), now) != NONE) {
                until = later(until, r.inheritedUntil());
                longest = Math.max(longest, r.inheritedLongest());
            }
        }
        return new long[] {until, longest};
    }

    /** A description of the quarantine's rule, for messages. */
    String describe() {
        if (configured != null) {
            return RedlockSettings.RESTART_QUARANTINE + " " + DurationFormat.format(configured);
        }
        return "the leases that may still be outstanding, at least " + LockConfig.LEASE_TIME + " "
                + DurationFormat.format(leaseTime);
    }

    private static String consequence(Duration configured) {
        return "a node that restarted empty would count again while the lease is still held on the other "
                + "nodes. Use leases of at most " + DurationFormat.format(configured) + " or raise "
                + RedlockSettings.RESTART_QUARANTINE + " to the longest lease any client uses";
    }

    private static long saturatedMillisToNanos(long millis) {
        return millis > Long.MAX_VALUE / 4_000_000L ? Long.MAX_VALUE / 4 : millis * 1_000_000L;
    }

    static long saturatedNanos(Duration duration) {
        try {
            return Math.min(duration.toNanos(), Long.MAX_VALUE / 4);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }
}
