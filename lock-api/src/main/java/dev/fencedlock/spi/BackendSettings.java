package dev.fencedlock.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The configuration values of one backend: every key under {@code fencedlock.<backend>.} that was
 * set, by its full name, with surrounding whitespace already removed. Absent keys are the
 * provider's to default. The parsing helpers throw {@link IllegalArgumentException} naming the key
 * and the value, so every backend reports bad values the same way.
 *
 * <p>Immutable and thread-safe.
 */
public final class BackendSettings {
    private final String backend;
    private final Map<String, String> values;

    private BackendSettings(String backend, Map<String, String> values) {
        this.backend = backend;
        this.values = Collections.unmodifiableMap(new TreeMap<>(values));
    }

    /**
     * Settings of {@code backend}, for tests and for providers that build them by hand.
     *
     * @throws IllegalArgumentException if a key does not start with {@link #prefix(String)}
     */
    public static BackendSettings of(String backend, Map<String, String> values) {
        String prefix = prefix(backend);
        for (String key : values.keySet()) {
            if (!key.startsWith(prefix)) {
                throw new IllegalArgumentException(
                        "Key '" + key + "' is not a setting of backend " + backend + " (expected " + prefix + "*)");
            }
        }
        return new BackendSettings(backend, values);
    }

    /**
     * {@code value} with the password of every URI in it replaced by {@code ****}, for messages
     * and {@code toString()}: a comma-separated list of URIs, or any text. Everything between a
     * URI's scheme and the last {@code @} of its entry counts as credentials, also where the URI is
     * malformed (a password with an unencoded {@code /}, {@code @} or {@code #}), and only the user
     * name before its first {@code :} is kept. When in doubt it masks too much, never too little.
     * Null for null.
     */
    public static String maskCredentials(String value) {
        return Masking.maskUriCredentials(value);
    }

    /** As {@link #maskCredentials}, for a single URI, which may contain commas. */
    public static String maskUri(String uri) {
        return Masking.maskUri(uri);
    }

    /** The prefix of every key of {@code backend}: {@code fencedlock.<backend>.}. */
    public static String prefix(String backend) {
        return "fencedlock." + backend + ".";
    }

    /** The backend these settings belong to. */
    public String backend() {
        return backend;
    }

    /** Every value that was set, by full key name, sorted by key. Possibly empty. */
    public Map<String, String> values() {
        return values;
    }

    /** The value of {@code key} (a full key name); empty when it was not set. */
    public Optional<String> get(String key) {
        return Optional.ofNullable(values.get(key));
    }

    /**
     * The value of {@code key} read as a duration ({@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h},
     * {@code 1d} or ISO-8601); empty when it was not set.
     *
     * @throws IllegalArgumentException naming the key and the value if it is not a duration, is
     *     zero or negative, or is too long to measure in nanoseconds
     */
    public Optional<Duration> positiveDuration(String key) {
        return get(key).map(value -> DurationFormat.parsePositive(key, value));
    }

    /**
     * The value of {@code key} split at commas, each entry trimmed; empty when it was not set.
     *
     * @throws IllegalArgumentException naming the key if an entry is empty
     */
    public List<String> list(String key) {
        List<String> entries = new ArrayList<>();
        String value = values.get(key);
        if (value == null) {
            return entries;
        }
        for (String entry : value.split(",", -1)) {
            if (entry.isBlank()) {
                throw new IllegalArgumentException(
                        key + " has an empty entry in '" + Masking.maskUriCredentials(value) + "'");
            }
            entries.add(entry.trim());
        }
        return entries;
    }

    /** Lists the values; credentials in URIs and values of keys naming a password or secret are masked. */
    @Override
    public String toString() {
        return Masking.describe(values);
    }
}
