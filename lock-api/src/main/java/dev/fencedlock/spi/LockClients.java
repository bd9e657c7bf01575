package dev.fencedlock.spi;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.internal.DefaultLockClient;
import java.util.function.Function;

/**
 * Builds a {@link LockClient} around a provider that a backend module constructs itself, for
 * example on a connection the application already owns, instead of one found by {@link
 * java.util.ServiceLoader}. The client behaves exactly like one from {@link LockClient#create}.
 */
public final class LockClients {
    private LockClients() {}

    /**
     * @param provider builds the provider on the client's lease runtime; if it throws, the runtime
     *     is closed again and the exception propagates
     */
    public static LockClient create(LockConfig config, Function<LeaseRuntime, LockProvider> provider) {
        return DefaultLockClient.open(config, provider);
    }

    /** As {@link #create(LockConfig, Function)}, reporting to {@code listener}. */
    public static LockClient create(
            LockConfig config, LockEventListener listener, Function<LeaseRuntime, LockProvider> provider) {
        return DefaultLockClient.open(config, listener, provider);
    }
}
