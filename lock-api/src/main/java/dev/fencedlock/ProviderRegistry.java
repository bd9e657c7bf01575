package dev.fencedlock;

import dev.fencedlock.spi.BackendSettings;
import dev.fencedlock.spi.LockProviderFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Routes each backend's configuration keys to the provider on the classpath ({@link
 * LockProviderFactory#installed()}) that owns them, for {@link LockConfig}.
 */
final class ProviderRegistry {
    private ProviderRegistry() {}

    /** Names of the backends whose providers are on the classpath, sorted. */
    static List<String> availableBackends() {
        TreeSet<String> names = new TreeSet<>();
        for (LockProviderFactory factory : factories()) {
            names.add(factory.backend());
        }
        return new ArrayList<>(names);
    }

    /** The common keys, then every provider's keys, each group sorted. */
    static List<String> knownKeys() {
        List<String> keys = new ArrayList<>(LockConfig.COMMON_KEYS);
        TreeSet<String> providerKeys = new TreeSet<>();
        for (LockProviderFactory factory : factories()) {
            providerKeys.addAll(factory.keys());
        }
        keys.addAll(providerKeys);
        return keys;
    }

    /**
     * Checks one backend key and its value with the provider that owns it.
     *
     * @throws IllegalArgumentException if no provider on the classpath declares the key, or the
     *     provider rejects the value
     */
    static void validate(String key, String value) {
        LockProviderFactory factory = owner(key);
        factory.validate(BackendSettings.of(factory.backend(), Map.of(key, value)));
    }

    /**
     * Groups backend keys by backend and has each provider check its group as a whole.
     *
     * @return the settings of each backend that has values, by backend name
     * @throws IllegalArgumentException as {@link #validate}
     */
    static Map<String, BackendSettings> validateAll(Map<String, String> values) {
        Map<String, Map<String, String>> grouped = new TreeMap<>();
        Map<String, LockProviderFactory> owners = new LinkedHashMap<>();
        for (Map.Entry<String, String> entry : values.entrySet()) {
            LockProviderFactory factory = owner(entry.getKey());
            owners.put(factory.backend(), factory);
            grouped.computeIfAbsent(factory.backend(), name -> new TreeMap<>()).put(entry.getKey(), entry.getValue());
        }
        Map<String, BackendSettings> settings = new TreeMap<>();
        grouped.forEach((backend, group) -> {
            BackendSettings backendSettings = BackendSettings.of(backend, group);
            owners.get(backend).validate(backendSettings);
            settings.put(backend, backendSettings);
        });
        return settings;
    }

    private static LockProviderFactory owner(String key) {
        for (LockProviderFactory factory : factories()) {
            if (key.startsWith(BackendSettings.prefix(factory.backend()))
                    && factory.keys().contains(key)) {
                return factory;
            }
        }
        throw unknownKey(key);
    }

    /** The error for a {@code fencedlock.*} key that nothing declares, read from no named source. */
    static IllegalArgumentException unknownKey(String key) {
        return new IllegalArgumentException(UnknownKeyMessage.of(null, key, knownKeys()));
    }

    private static List<LockProviderFactory> factories() {
        return LockProviderFactory.installed();
    }
}
