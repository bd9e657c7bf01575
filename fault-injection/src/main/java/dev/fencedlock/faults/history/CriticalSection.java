package dev.fencedlock.faults.history;

import java.util.Objects;

/**
 * One critical section of one client: the time it held (or believed it held) a lock, as the client
 * saw it. All times are {@link System#nanoTime()} readings; on Linux that is {@code CLOCK_MONOTONIC},
 * which every process on the machine shares, so sections recorded by different JVMs of one machine
 * can be compared directly.
 *
 * @param lock the lock name
 * @param client who held it: a process and thread, unique within one history
 * @param token the lease's fencing token
 * @param acquireStartNanos when the acquire call that produced the lease began
 * @param enterNanos when the acquire call had returned the lease
 * @param lastValidNanos the last instant at which the client saw {@code Lease.isValid()} answer
 *     true (read before the call, so the lease was valid at least until then); smaller than {@code
 *     enterNanos} if the client never saw it valid after the acquire returned
 * @param exitNanos when the client stopped acting as the holder (before it released the lease)
 * @param lost whether the client learned that the lease was lost (a loss notification, or the lease
 *     found invalid) before it released it
 */
public record CriticalSection(
        String lock,
        String client,
        long token,
        long acquireStartNanos,
        long enterNanos,
        long lastValidNanos,
        long exitNanos,
        boolean lost) {

    public CriticalSection {
        Objects.requireNonNull(lock, "lock");
        HistoryFormat.requirePlain("client", client);
        if (acquireStartNanos > enterNanos || enterNanos > exitNanos) {
            throw new IllegalArgumentException("section of " + client + " on '" + lock
                    + "' needs acquireStart <= enter <= exit, got " + acquireStartNanos + ", " + enterNanos + ", "
                    + exitNanos);
        }
        if (lastValidNanos > exitNanos) {
            throw new IllegalArgumentException("section of " + client + " on '" + lock + "' was seen valid at "
                    + lastValidNanos + ", after its exit at " + exitNanos);
        }
    }

    /** Whether the client ever saw its lease valid inside the section. */
    public boolean everSeenValid() {
        return lastValidNanos >= enterNanos;
    }

    /** Whether the two sections' [enter, exit) intervals intersect. */
    public boolean overlaps(CriticalSection other) {
        return enterNanos < other.exitNanos && other.enterNanos < exitNanos;
    }

    /**
     * Whether there is an instant at which both clients had seen their lease valid: both believed
     * they held the lock at once. For a lock whose validity is bounded in time (Redlock) this must
     * never happen unless a node lost a key early; for ZooKeeper only a session the server expired
     * without the client hearing of it allows it.
     */
    public boolean bothBelievedValid(CriticalSection other) {
        return everSeenValid()
                && other.everSeenValid()
                && enterNanos <= other.lastValidNanos
                && other.enterNanos <= lastValidNanos;
    }

    @Override
    public String toString() {
        return client + "[" + lock + " #" + token + " " + enterNanos + ".." + exitNanos + (lost ? " lost" : "") + "]";
    }
}
