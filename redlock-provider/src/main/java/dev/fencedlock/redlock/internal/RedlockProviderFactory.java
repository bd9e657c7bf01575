package dev.fencedlock.redlock.internal;

import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockLocks;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.BackendSettings;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import dev.fencedlock.spi.LockProviderFactory;
import java.util.Set;

/**
 * The {@code redlock} backend as {@link java.util.ServiceLoader} finds it for {@code
 * fencedlock.backend=redlock}, and the door through which {@link RedlockLocks} builds providers
 * from typed settings. The algorithm and the settings are described on {@link RedlockLocks}.
 * Thread-safe.
 */
public final class RedlockProviderFactory implements LockProviderFactory {

    @Override
    public String backend() {
        return RedlockLocks.BACKEND;
    }

    @Override
    public Set<String> keys() {
        return RedlockSettings.KEYS;
    }

    /** Parses every value with {@link RedlockSettings#from}. */
    @Override
    public void validate(BackendSettings settings) {
        RedlockSettings.from(settings);
    }

    /**
     * @throws IllegalArgumentException as {@link RedlockSettings.Builder#build()} (no mode chosen,
     *     one Sentinel key without its partner, ...), or if {@code
     *     fencedlock.redlock.restart-quarantine} is configured shorter than {@code
     *     fencedlock.lease-time}
     */
    @Override
    public LockProvider create(LockConfig config, LeaseRuntime runtime) {
        return RedlockProvider.create(config, runtime, RedlockProvider.Options.DEFAULT);
    }

    /**
     * A provider on the nodes {@code settings} name, for the leases of {@code runtime}.
     *
     * @throws IllegalArgumentException if two nodes are one server under two names, or a configured
     *     restart quarantine is shorter than the lease time
     */
    public static LockProvider create(RedlockSettings settings, LeaseRuntime runtime) {
        return RedlockProvider.create(settings, runtime, RedlockProvider.Options.DEFAULT);
    }
}
