package dev.fencedlock.spi;

import dev.fencedlock.LockConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Creates the {@link LockProvider} of one backend, and owns the backend's configuration keys.
 *
 * <h2>Writing a backend</h2>
 *
 * <ol>
 *   <li>Implement this interface (public no-argument constructor, thread-safe) and list the class in
 *       {@code META-INF/services/dev.fencedlock.spi.LockProviderFactory}; {@link
 *       java.util.ServiceLoader} finds it, so {@code fencedlock.backend=<name>} selects it without
 *       any change to {@code lock-api}.
 *   <li>Declare the backend's keys in {@link #keys()}: full names under {@code fencedlock.<backend>.}
 *       (see {@link BackendSettings#prefix}). {@link LockConfig} hands every {@code
 *       fencedlock.<backend>.*} value it reads (properties, builder, system properties, environment
 *       variables {@code FENCEDLOCK_<BACKEND>_...}, {@code fencedlock.properties}) to this backend,
 *       trimmed, and rejects any key not in {@link #keys()} with the known keys listed.
 *   <li>Check values in {@link #validate}: it runs when the configuration is built (once per key
 *       as it is set, then once for all of them), so a bad value fails at start-up with an {@link
 *       IllegalArgumentException} naming the key and the value. Missing required keys are checked
 *       in {@link #create}: a configuration may name a backend and leave its keys to a provider
 *       built by hand (see {@link LockClients}).
 *   <li>In {@link #create}, read the settings with {@code config.settings(backend())}, apply your
 *       defaults, and connect. Leases extend {@link AbstractLease}, locks {@link AbstractFencedLock};
 *       use the {@link LeaseRuntime}'s clock and scheduler.
 * </ol>
 *
 * <h2>What every backend owes</h2>
 *
 * <ul>
 *   <li><b>Tokens.</b> Every grant's token is larger than every earlier token of the same lock name
 *       on this backend, and at least {@code t << 16} where {@code t} is the granting side's wall
 *       clock in milliseconds since the epoch ({@code next = max(t << 16, previous + 1)}), so that
 *       tokens stay in one order when a deployment switches backends or falls back to another one
 *       ({@code fencedlock.fallback}). This rests on the clocks involved being synchronised far more
 *       closely than one lease time.
 *   <li><b>Renewal.</b> Auto-renewing leases are extended by {@link AbstractLease} every third of
 *       the lease time; {@link AbstractLease#doExtend} must answer within the validity left, and
 *       report "not held" (empty) only when the backend knows another grant replaced this one.
 *   <li><b>Faults.</b> A backend that cannot answer throws {@link
 *       dev.fencedlock.LockUnavailableException}: that is what makes a configured fallback take
 *       over. Losing a race is an empty result, never an exception.
 *   <li><b>The contract.</b> Extend {@code dev.fencedlock.testkit.LockContractTest} (module {@code
 *       lock-testkit}), returning a builder with your settings: {@code
 *       LockConfig.builder().backend("mine").set("fencedlock.mine.url", url)}.
 * </ul>
 */
public interface LockProviderFactory {

    /** The value of {@code fencedlock.backend} this factory serves, lower case, e.g. {@code redlock}. */
    String backend();

    /**
     * Every configuration key this backend reads, full names starting with {@link
     * BackendSettings#prefix BackendSettings.prefix(backend())}. Any other key under that prefix is
     * rejected. Default: none.
     */
    default Set<String> keys() {
        return Set.of();
    }

    /**
     * Checks the values that were set; absent keys are not an error here. Called while a {@link
     * LockConfig} is built, with one key at a time and then with all of them.
     *
     * @throws IllegalArgumentException naming the key and the value when a value is unusable
     */
    default void validate(BackendSettings settings) {}

    /**
     * Connects to the backend as {@code config.settings(backend())} describes.
     *
     * @param runtime the lease scheduler and clock the provider's leases must use
     * @throws IllegalArgumentException if a setting this backend needs is missing or unusable; the
     *     message names the key
     */
    LockProvider create(LockConfig config, LeaseRuntime runtime);

    /**
     * The factories on the classpath, found with {@link ServiceLoader} through the context class
     * loader, or through the class loader of {@code lock-api} when the context class loader finds
     * none, in the order {@link ServiceLoader} finds them. Empty when there are none.
     */
    static List<LockProviderFactory> installed() {
        List<LockProviderFactory> result = new ArrayList<>();
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        ServiceLoader.load(LockProviderFactory.class, context).forEach(result::add);
        if (result.isEmpty() && context != LockProviderFactory.class.getClassLoader()) {
            ServiceLoader.load(LockProviderFactory.class, LockProviderFactory.class.getClassLoader())
                    .forEach(result::add);
        }
        return result;
    }
}
