package dev.fencedlock.spi;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.FencedLock;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.LockNames;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The {@link LockClient} behind {@link LockClient#create} and {@link LockClients}: the configured
 * backend (provider plus lease runtime), and the {@code fencedlock.fallback} backend with its
 * {@link Failover} when one is configured.
 */
final class DefaultLockClient implements LockClient {
    static final LockEventListener NO_LISTENER = new LockEventListener() {};

    private final LockConfig config;
    private final Backend primary;
    private final Failover failover;
    private final LockEventListener listener;
    private final AtomicBoolean closed = new AtomicBoolean();

    private DefaultLockClient(LockConfig config, Backend primary, Failover failover, LockEventListener listener) {
        this.config = config;
        this.primary = primary;
        this.failover = failover;
        this.listener = listener;
    }

    /** Finds the configured backend's provider and connects it. */
    /** Finds the configured backend's provider and connects it, reporting to {@code listener}. */
    static LockClient open(LockConfig config, LockEventListener listener) {
        Objects.requireNonNull(config, "config");
        LockProviderFactory factory = forBackend(LockConfig.BACKEND, config.backend());
        return open(config, listener, runtime -> factory.create(config, runtime));
    }

    /**
     * Connects the provider that {@code providerFactory} builds, and the configured fallback's
     * provider if there is one.
     *
     * @throws IllegalArgumentException if the fallback is not on the classpath or rejects its
     *     settings; nothing stays connected then
     */
    static LockClient open(
            LockConfig config, LockEventListener listener, Function<LeaseRuntime, LockProvider> providerFactory) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(providerFactory, "providerFactory");
        LockProviderFactory fallbackFactory = config.fallback()
                .map(name -> forBackend(LockConfig.FALLBACK, name))
                .orElse(null);
        Backend primary = connect(config.backend(), config, listener, providerFactory);
        if (fallbackFactory == null) {
            return new DefaultLockClient(config, primary, null, listener);
        }
        try {
            FallbackLeases fallbackLeases = new FallbackLeases(listener);
            Backend fallback = connect(
                    fallbackFactory.backend(),
                    config,
                    fallbackLeases,
                    runtime -> fallbackFactory.create(config, runtime));
            return new DefaultLockClient(
                    config,
                    primary,
                    new Failover(
                            primary,
                            fallback,
                            fallbackLeases,
                            listener,
                            config,
                            PrimaryProbe.INTERVAL,
                            MonotonicClock.SYSTEM),
                    listener);
        } catch (RuntimeException e) {
            primary.close();
            throw e;
        }
    }

    /**
     * @param key the key that named the backend ({@code fencedlock.backend} or {@code
     *     fencedlock.fallback}), for the message
     * @throws IllegalArgumentException if no provider serves {@code backend}; the message lists the
     *     backends that are on the classpath
     */
    private static LockProviderFactory forBackend(String key, String backend) {
        TreeSet<String> available = new TreeSet<>();
        for (LockProviderFactory factory : LockProviderFactory.installed()) {
            if (factory.backend().equals(backend)) {
                return factory;
            }
            available.add(factory.backend());
        }
        throw new IllegalArgumentException("Unknown " + key + " '" + backend + "'; backends on the classpath: "
                + available + " (add the provider module, e.g. dev.fencedlock:redlock-provider, to use another)");
    }

    private static Backend connect(
            String name,
            LockConfig config,
            LockEventListener listener,
            Function<LeaseRuntime, LockProvider> providerFactory) {
        LeaseRuntime runtime = new LeaseRuntime(name, config, MonotonicClock.SYSTEM, listener);
        try {
            return new Backend(name, runtime, Objects.requireNonNull(providerFactory.apply(runtime)));
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
        if (failover == null && listener == NO_LISTENER) {
            return primary.provider().lock(name);
        }
        return new ClientLock(name, primary, failover, listener, MonotonicClock.SYSTEM);
    }

    @Override
    public List<BackendStatus> status() {
        if (closed.get()) {
            throw new IllegalStateException("LockClient for backend " + config.backend() + " is closed");
        }
        BackendStatus primaryStatus = primary.status();
        return failover == null
                ? List.of(primaryStatus)
                : List.of(
                        withheld(primaryStatus, true),
                        withheld(failover.fallback().status(), false));
    }

    /** {@code status} as DOWN, its nodes as they are, while the failover keeps that backend from granting. */
    private BackendStatus withheld(BackendStatus status, boolean ofPrimary) {
        return failover.withholds(ofPrimary)
                ? new BackendStatus(status.backend(), BackendStatus.State.DOWN, status.nodes())
                : status;
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
            if (failover != null) {
                failover.close();
                failover.fallback().close();
            }
        } finally {
            primary.close();
        }
    }

    @Override
    public String toString() {
        return "LockClient{backend=" + config.backend()
                + (failover == null
                        ? ""
                        : ", fallback=" + failover.fallback().name() + ", fallbackLeases="
                                + failover.fallback().runtime().heldLeases())
                + ", heldLeases=" + primary.runtime().heldLeases() + "}";
    }
}
