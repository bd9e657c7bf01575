package dev.fencedlock.spi;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockEventListener;
import java.util.function.Function;

/**
 * Builds {@link LockClient}s: for the configured backend, found by {@link java.util.ServiceLoader}
 * ({@link LockClient#create} delegates here), or around a provider that a backend module constructs
 * itself, for example on a connection the application already owns. Both behave the same way.
 */
public final class LockClients {
    private LockClients() {}

    /** As {@link #create(LockConfig, LockEventListener)}, reporting to no listener. */
    public static LockClient create(LockConfig config) {
        return DefaultLockClient.open(config, DefaultLockClient.NO_LISTENER);
    }

    /**
     * A client for the backend {@code config} names, and its fallback if one is configured, found
     * with {@link LockProviderFactory#installed()}; see {@link LockClient#create(LockConfig,
     * LockEventListener)}.
     *
     * @throws IllegalArgumentException if no provider on the classpath serves the backend or the
     *     fallback (the message lists those found), or a provider rejects the configuration
     */
    public static LockClient create(LockConfig config, LockEventListener listener) {
        return DefaultLockClient.open(config, listener);
    }

    /**
     * @param provider builds the provider on the client's lease runtime; if it throws, the runtime
     *     is closed again and the exception propagates
     */
    public static LockClient create(LockConfig config, Function<LeaseRuntime, LockProvider> provider) {
        return DefaultLockClient.open(config, DefaultLockClient.NO_LISTENER, provider);
    }

    /** As {@link #create(LockConfig, Function)}, reporting to {@code listener}. */
    public static LockClient create(
            LockConfig config, LockEventListener listener, Function<LeaseRuntime, LockProvider> provider) {
        return DefaultLockClient.open(config, listener, provider);
    }
}
