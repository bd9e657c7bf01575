package dev.fencedlock.spi;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.FencedLock;

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
     * Closes the backend's connections. Called after every lease of the client has been released.
     * Idempotent.
     */
    @Override
    void close();
}
