package dev.fencedlock.redlock.internal;

import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import dev.fencedlock.spi.LockProviderFactory;

/**
 * The redlock backend for tests through the public {@code LockClient} on servers started moments
 * before: they need a restart quarantine of next to nothing with ordinary leases, which the real
 * backend refuses. Everything else is the real {@link RedlockProvider}.
 */
public final class FreshNodesProviderFactory implements LockProviderFactory {
    public static final String BACKEND = "redlock-fresh-nodes";

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public LockProvider create(LockConfig config, LeaseRuntime runtime) {
        return RedlockProvider.create(config, runtime, TestClient.OPTIONS);
    }
}
