package dev.fencedlock.internal;

import dev.fencedlock.FencedLock;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockNames;
import dev.fencedlock.internal.config.ProviderRegistry;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import dev.fencedlock.spi.LockProviderFactory;
import dev.fencedlock.spi.MonotonicClock;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/** The {@link LockClient} behind {@link LockClient#create}: a provider plus its lease runtime. */
public final class DefaultLockClient implements LockClient {
    private final LockConfig config;
    private final LeaseRuntime runtime;
    private final LockProvider provider;
    private final AtomicBoolean closed = new AtomicBoolean();

    private DefaultLockClient(LockConfig config, LeaseRuntime runtime, LockProvider provider) {
        this.config = config;
        this.runtime = runtime;
        this.provider = provider;
    }

    /** Finds the configured backend's provider and connects it. */
    public static LockClient open(LockConfig config) {
        Objects.requireNonNull(config, "config");
        LockProviderFactory factory = ProviderRegistry.forBackend(config.backend());
        return open(config, runtime -> factory.create(config, runtime));
    }

    /** Connects the provider that {@code providerFactory} builds on the new client's runtime. */
    public static LockClient open(LockConfig config, Function<LeaseRuntime, LockProvider> providerFactory) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(providerFactory, "providerFactory");
        LeaseRuntime runtime = new LeaseRuntime(config, MonotonicClock.SYSTEM);
        try {
            return new DefaultLockClient(config, runtime, Objects.requireNonNull(providerFactory.apply(runtime)));
        } catch (RuntimeException e) {
            runtime.close();
            throw e;
        }
    }

    @Override
    public FencedLock lock(String name) {
        LockNames.requireValid(name);
        if (closed.get()) {
            throw new IllegalStateException("LockClient for backend " + config.backend() + " is closed");
        }
        return provider.lock(name);
    }

    @Override
    public LockConfig config() {
        return config;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            runtime.close();
        } finally {
            provider.close();
        }
    }

    @Override
    public String toString() {
        return "LockClient{backend=" + config.backend() + ", heldLeases=" + runtime.heldLeases() + "}";
    }
}
