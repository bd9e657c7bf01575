package dev.fencedlock.spi;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.FencedLock;
import java.time.Duration;
import java.util.Optional;

/**
 * One backend connection, shared by all locks of a {@link dev.fencedlock.LockClient}. Must be
 * thread-safe.
 */
public interface LockProvider extends AutoCloseable {

    /**
     * Returns the lock for {@code name}. The name has already passed {@link
     * dev.fencedlock.LockNames#requireValid}; a backend that must encode it does so here.
     */
    FencedLock lock(String name);

    /**
     * What the backend knows of its nodes now, for health checks. Must not take a lock; may send a
     * cheap request to each node but must return within about one node timeout. The default reports
     * {@link BackendStatus.State#UNKNOWN} with no nodes, so a provider need not implement it.
     *
     * @param backend the backend name the client knows this provider by
     */
    default BackendStatus status(String backend) {
        return BackendStatus.unknown(backend);
    }

    /**
     * The longest time a lease that this backend granted, to any client, may still be valid after
     * the backend stopped answering: the figure a fallback waits out before it grants a name the
     * backend may still have granted, and that a switch back waits out for the fallback's leases.
     * A backend that records the longest lease granted (Redlock's longest-lease record, read while
     * the nodes answered) returns it here; one whose holders lose their leases as soon as they lose
     * the server (ZooKeeper: a suspended session) returns that bound.
     *
     * <p>Must not block on the backend: answer from what is already known. Empty (the default)
     * means the backend does not know, and the client falls back to its own figure: the larger of
     * {@code fencedlock.lease-time} and the longest fixed lease it has asked for.
     */
    default Optional<Duration> longestOutstandingLease() {
        return Optional.empty();
    }

    /**
     * Closes the backend's connections. Called after every lease of the client has been released.
     * Idempotent.
     */
    @Override
    void close();
}
