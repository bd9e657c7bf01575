package dev.fencedlock.testkit.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockConfig;
import java.util.Properties;

/**
 * Reads configuration the way users write it, for tests of a backend's keys: as properties, so
 * that what a provider sees went through the same path as a {@code fencedlock.properties} file.
 */
public final class ConfigTesting {
    private ConfigTesting() {}

    /**
     * A configuration from alternating keys and values, e.g. {@code fromPairs("fencedlock.backend",
     * "redlock", "fencedlock.redlock.nodes", "redis://a:6379")}.
     */
    public static LockConfig fromPairs(String... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values must come in pairs, got " + keysAndValues.length);
        }
        Properties properties = new Properties();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            properties.setProperty(keysAndValues[i], keysAndValues[i + 1]);
        }
        return LockConfig.fromProperties(properties);
    }

    /**
     * Asserts that {@code key=value} (beside {@code fencedlock.backend=local}) is rejected with an
     * {@link IllegalArgumentException} whose message names the key and contains {@code expected}.
     */
    public static void assertRejected(String key, String value, String expected) {
        assertThatThrownBy(() -> fromPairs(LockConfig.BACKEND, "local", key, value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(expected)
                .hasMessageContaining(key);
    }
}
