package dev.fencedlock.spi;

import dev.fencedlock.LockConfig;

/**
 * Creates the {@link LockProvider} of one backend. Implementations are found with {@link
 * java.util.ServiceLoader}: list the class in {@code
 * META-INF/services/dev.fencedlock.spi.LockProviderFactory}. They need a public no-argument
 * constructor and must be thread-safe.
 */
public interface LockProviderFactory {

    /** The value of {@code fencedlock.backend} this factory serves, lower case, e.g. {@code redlock}. */
    String backend();

    /**
     * Connects to the backend as {@code config} describes.
     *
     * @param runtime the lease scheduler and clock the provider's leases must use
     * @throws IllegalArgumentException if a setting this backend needs is missing or unusable; the
     *     message names the key
     */
    LockProvider create(LockConfig config, LeaseRuntime runtime);
}
