package dev.fencedlock;

import dev.fencedlock.spi.LockClients;
import java.util.List;

/**
 * Entry point: one client per application and backend, shared by all threads.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.fromEnvironment()) {
 *     FencedLock lock = client.lock("inventory:sku-42");
 *     try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
 *         long token = lease.token();
 *         // write, carrying the token to storage that checks it
 *     }
 * }
 * }</pre>
 *
 * <p>The backend ({@code redlock}, {@code zookeeper} or the in-process {@code local}) is chosen by
 * {@code fencedlock.backend} and found with {@link java.util.ServiceLoader}, so switching backends
 * is a configuration change.
 *
 * <p>Thread-safety: safe for concurrent use. {@link #close()} releases every lease still held
 * through this client, stops renewals and closes the backend's connections.
 */
public interface LockClient extends AutoCloseable {

    /**
     * Creates a client for the backend that {@code config} names.
     *
     * @throws IllegalArgumentException if no provider on the classpath serves the configured
     *     backend or fallback (the message lists those found), or a provider rejects the
     *     configuration (a missing required key, such as the fallback's own)
     */
    static LockClient create(LockConfig config) {
        return LockClients.create(config);
    }

    /**
     * Creates a client for the backend that {@code config} names, reporting its lock activity to
     * {@code listener} (see {@link LockEventListener}).
     *
     * @throws IllegalArgumentException as {@link #create(LockConfig)}, also for an unknown {@code
     *     fencedlock.fallback} or a fallback whose provider rejects its settings
     */
    static LockClient create(LockConfig config, LockEventListener listener) {
        return LockClients.create(config, listener);
    }

    /**
     * Creates a client from {@link LockConfig#fromEnvironment()}: system properties over
     * environment variables over a {@code fencedlock.properties} resource on the classpath.
     */
    static LockClient fromEnvironment() {
        return create(LockConfig.fromEnvironment());
    }

    /**
     * Returns the lock with this name. Names are compared exactly; see {@link LockNames} for what
     * is accepted.
     *
     * @throws IllegalArgumentException if the name is null, blank, too long or has control
     *     characters
     * @throws IllegalStateException if the client is closed
     */
    FencedLock lock(String name);

    /**
     * What the backends say about themselves now, without taking a lock: the configured backend
     * first, then the {@code fencedlock.fallback} backend if one is configured. Returns within about
     * one node timeout of each backend. A backend this client keeps from granting although it
     * answers is reported {@link BackendStatus.State#DOWN} (its nodes as they are): with the default
     * {@code fencedlock.fallback-takeover=wait-out}, the fallback until it takes over, and both
     * while the client waits out the fallback's leases before returning to the primary.
     *
     * @throws IllegalStateException if the client is closed
     */
    List<BackendStatus> status();

    /** The configuration this client was created with. */
    LockConfig config();

    /** Releases every lease still held through this client and closes the backend. Idempotent. */
    @Override
    void close();
}
