package dev.fencedlock.internal.config;

import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.LockProviderFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.TreeSet;

/** Finds {@link LockProviderFactory} implementations with {@link ServiceLoader}. */
public final class ProviderRegistry {
    private ProviderRegistry() {}

    /** Names of the backends whose providers are on the classpath, sorted. */
    public static List<String> availableBackends() {
        TreeSet<String> names = new TreeSet<>();
        for (LockProviderFactory factory : factories()) {
            names.add(factory.backend());
        }
        return new ArrayList<>(names);
    }

    /**
     * @throws IllegalArgumentException if no provider serves the configured backend; the message
     *     lists the backends that are on the classpath
     */
    public static LockProviderFactory forBackend(String backend) {
        for (LockProviderFactory factory : factories()) {
            if (factory.backend().equals(backend)) {
                return factory;
            }
        }
        throw new IllegalArgumentException("Unknown " + LockConfig.BACKEND + " '" + backend
                + "'; backends on the classpath: " + availableBackends()
                + " (add the provider module, e.g. dev.fencedlock:redlock-provider, to use another)");
    }

    private static List<LockProviderFactory> factories() {
        List<LockProviderFactory> result = new ArrayList<>();
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        ServiceLoader.load(LockProviderFactory.class, context).forEach(result::add);
        if (result.isEmpty() && context != ProviderRegistry.class.getClassLoader()) {
            ServiceLoader.load(LockProviderFactory.class, ProviderRegistry.class.getClassLoader())
                    .forEach(result::add);
        }
        return result;
    }
}
