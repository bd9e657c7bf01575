package dev.fencedlock.spi;

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
     * Closes the backend's connections. Called after every lease of the client has been released.
     * Idempotent.
     */
    @Override
    void close();
}
