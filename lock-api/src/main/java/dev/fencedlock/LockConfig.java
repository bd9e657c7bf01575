package dev.fencedlock;

import dev.fencedlock.spi.BackendSettings;
import dev.fencedlock.spi.DurationFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Immutable configuration of a {@link LockClient}. Build it from properties ({@link
 * #fromProperties}), from the environment ({@link #fromEnvironment}) or with {@link #builder()}.
 *
 * <p>This class owns the keys every backend shares:
 *
 * <table>
 *   <caption>Common keys</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@code fencedlock.backend}</td><td>the backend: {@code redlock}, {@code zookeeper},
 *       {@code local} or any other provider on the classpath</td><td>required</td></tr>
 *   <tr><td>{@code fencedlock.fallback}</td><td>a second backend that grants leases while the first
 *       cannot answer (see below)</td><td>none</td></tr>
 *   <tr><td>{@code fencedlock.fallback-takeover}</td><td>when the fallback may grant a name and the
 *       primary may grant it again: {@code wait-out} (only once no lease of the other backend can
 *       still be valid) or {@code immediate} (at once; two holders then overlap, only fenced effects
 *       are safe)</td><td>{@code wait-out}</td></tr>
 *   <tr><td>{@code fencedlock.lease-time}</td><td>lease length of auto-renewing leases</td><td>30s</td></tr>
 *   <tr><td>{@code fencedlock.max-hold-time}</td><td>cap on how long auto-renewal keeps a lease;
 *       at least {@code fencedlock.lease-time}</td><td>none</td></tr>
 * </table>
 *
 * <p>{@code fencedlock.max-hold-time} bounds how long a holder that never closes its lease (a
 * stuck thread, a forgotten {@code close}) keeps the lock: renewal stops so that the lease ends no
 * later than the cap after its grant. It cannot be shorter than {@code fencedlock.lease-time}, since
 * the first grant already lasts that long: such a pair is rejected by {@link Builder#build()}
 * rather than held for the lease time in spite of the cap. It applies to auto-renewing leases; a
 * fixed lease ({@link FencedLock#acquire(Duration, Duration)}) ends at the lease time its caller
 * chose, which no renewal lengthens, and {@link Lease#extend} moves the end only when asked.
 *
 * <p>Every other key belongs to a backend: {@code fencedlock.<backend>.*} values are handed to that
 * backend's provider ({@link dev.fencedlock.spi.LockProviderFactory}), which declares and checks
 * them; {@link #settings(String)} returns them. The providers of this project document theirs:
 * {@code fencedlock.redlock.*} on {@code dev.fencedlock.redlock.RedlockSettings}, {@code
 * fencedlock.zookeeper.*} on {@code dev.fencedlock.zookeeper.ZooKeeperSettings}. A {@code
 * fencedlock.*} key that is neither common nor declared by a provider on the classpath is rejected
 * with the key it resembles and the known keys listed (a typo must not leave a default in place;
 * {@link #unknownKey} words the message). {@link #fromEnvironment()}
 * reads system properties and environment variables too, where names that resemble no key are
 * ignored (see {@link #ignoreUnlessMisspelt}).
 *
 * <p>Durations are written {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, {@code 1d} (or
 * ISO-8601), at most {@link DurationFormat#MAX} (about 73 years). Whitespace around a value is
 * removed, whatever the source. Every bad value is rejected with an {@link
 * IllegalArgumentException} naming the key and the value; no bad value is ever replaced by a
 * default.
 *
 * <h2>The fallback</h2>
 *
 * <p>{@code fencedlock.fallback} names a second backend, configured with its own keys, that grants
 * leases while the primary cannot answer ({@link LockUnavailableException}, or no answer within
 * what is left of the wait, at least 1 s); a probe asks the primary about once a second and
 * acquisitions return to it when it answers. {@link Lease#backend()} names the backend that granted
 * a lease; every switch is logged and reported to {@link LockEventListener#backendSwitched}.
 *
 * <p>The overlap bound: with {@code fencedlock.fallback-takeover=wait-out} (the default) each
 * backend grants a name only once no lease of the other can still be valid, as this client sees
 * it, and acquisitions wait or are refused in between; two holders of one name, one on each backend, are
 * valid at once only when clients see the primary's outage or its return more than a probe
 * interval apart (or one did not acquire during the outage), clocks drift beyond the backends'
 * allowance, or clients of one name use different lease times. With {@code immediate} two holders
 * overlap for up to the primary's longest outstanding lease after a takeover and up to the
 * fallback's lease time after a switch back. Whenever holders overlap only fenced effects are
 * safe. See docs/guarantees.md for the rules, their assumptions and when not to use a fallback.
 */
public final class LockConfig {
    public static final String PREFIX = "fencedlock.";
    public static final String BACKEND = "fencedlock.backend";
    public static final String FALLBACK = "fencedlock.fallback";
    public static final String LEASE_TIME = "fencedlock.lease-time";
    public static final String MAX_HOLD_TIME = "fencedlock.max-hold-time";
    public static final String FALLBACK_TAKEOVER = "fencedlock.fallback-takeover";

    /** The keys this class owns; backends own the rest. */
    public static final List<String> COMMON_KEYS =
            List.of(BACKEND, FALLBACK, FALLBACK_TAKEOVER, LEASE_TIME, MAX_HOLD_TIME);

    private final String backend;
    private final String fallback;
    private final Duration leaseTime;
    private final Duration maxHoldTime;
    private final FallbackTakeover fallbackTakeover;
    private final Map<String, BackendSettings> backendSettings;

    /**
     * When a fallback may grant a name the primary may have granted, and the primary a name the
     * fallback may have granted ({@value LockConfig#FALLBACK_TAKEOVER}); see "The fallback" above.
     */
    public enum FallbackTakeover {
        /**
         * The default: each backend grants only once no lease of the other can still be valid
         * (waits out the other's longest outstanding lease); acquisitions in between wait or throw
         * {@link LockUnavailableException}.
         */
        WAIT_OUT("wait-out"),
        /**
         * At once: the fallback grants as soon as the primary fails, the primary as soon as it
         * answers again. Two holders then overlap; only fenced effects are safe.
         */
        IMMEDIATE("immediate");

        private final String value;

        FallbackTakeover(String value) {
            this.value = value;
        }

        /** The written form, {@code wait-out} or {@code immediate}. */
        public String value() {
            return value;
        }

        /**
         * Reads the written form, in any case.
         *
         * @throws IllegalArgumentException naming {@value LockConfig#FALLBACK_TAKEOVER} and {@code text} if it
         *     is neither {@code wait-out} nor {@code immediate}
         */
        public static FallbackTakeover parse(String text) {
            for (FallbackTakeover takeover : values()) {
                if (takeover.value.equalsIgnoreCase(text)) {
                    return takeover;
                }
            }
            throw new IllegalArgumentException(
                    FALLBACK_TAKEOVER + " has '" + text + "'; expected wait-out (the default) or immediate");
        }

        @Override
        public String toString() {
            return value;
        }
    }

    private LockConfig(Builder builder, Map<String, BackendSettings> backendSettings) {
        this.backend = builder.backend;
        this.fallback = builder.fallback;
        this.leaseTime = builder.leaseTime;
        this.maxHoldTime = builder.maxHoldTime;
        this.fallbackTakeover = builder.fallbackTakeover;
        this.backendSettings = backendSettings;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads the {@code fencedlock.*} keys of {@code properties}; other keys are ignored, so an
     * application's whole property set may be passed.
     *
     * @throws IllegalArgumentException for an unknown {@code fencedlock.*} key (likely a typo), a
     *     value that cannot be read, or a missing backend
     */
    public static LockConfig fromProperties(Properties properties) {
        Map<String, String> values = new TreeMap<>();
        for (String name : properties.stringPropertyNames()) {
            values.put(name, properties.getProperty(name));
        }
        return fromMap(values);
    }

    /** Same as {@link #fromProperties(Properties)}, for a map. */
    public static LockConfig fromMap(Map<String, String> values) {
        Builder builder = builder();
        for (Map.Entry<String, String> entry : new TreeMap<>(values).entrySet()) {
            if (entry.getKey().startsWith(PREFIX)) {
                builder.set(entry.getKey(), entry.getValue());
            }
        }
        return builder.build();
    }

    /**
     * Reads configuration from, highest precedence first: system properties, environment
     * variables (the key upper-cased with dots and dashes as underscores, e.g. {@code
     * FENCEDLOCK_REDLOCK_NODE_TIMEOUT}), and a {@code fencedlock.properties} resource on the
     * context class loader's classpath.
     *
     * <p>The file is the application's own: an unknown {@code fencedlock.*} key in it is rejected.
     * System properties and environment variables belong to the whole process (build tools pass
     * {@code -Dfencedlock.version=...} to test JVMs): one that matches no key is ignored and logged
     * at INFO, unless it resembles a key, which is taken for a typo and rejected (see {@link
     * #ignoreUnlessMisspelt}).
     *
     * @throws IllegalArgumentException also for a system property or environment variable that
     *     matches no key but resembles one
     */
    public static LockConfig fromEnvironment() {
        return fromEnvironment(
                System.getProperties(), System.getenv(), Thread.currentThread().getContextClassLoader());
    }

    /**
     * As {@link #fromEnvironment()}, from the given sources instead of this process's: for
     * frameworks and tests that supply their own.
     *
     * @param classLoader where {@code fencedlock.properties} is looked up
     * @throws IllegalArgumentException as {@link #fromEnvironment()}
     */
    public static LockConfig fromEnvironment(
            Properties systemProperties, Map<String, String> environment, ClassLoader classLoader) {
        return fromMap(ConfigSources.merge(systemProperties, environment, classLoader, keys()));
    }

    /**
     * The rule for a name from the process's surroundings (a system property, an environment
     * variable) that starts with {@code fencedlock.} or {@code FENCEDLOCK_} but is no key: it is
     * ignored (logged at INFO) unless it resembles a key, that is, in its environment-variable form
     * it is within two edits (insert, delete, replace, swap of neighbours) of a key's, or it starts
     * with the prefix of a backend on the classpath ({@code fencedlock.redlock.}). {@link
     * #fromEnvironment()} applies it; frameworks that read such sources themselves apply it too.
     *
     * @param source the kind of source, for the message: {@code "system property"}, {@code
     *     "environment variable"}
     * @param name the name exactly as written there, in either form
     * @param moreKeys keys the caller owns besides {@link #keys()}; may be empty
     * @throws IllegalArgumentException when {@code name} resembles a key, worded as {@link
     *     #unknownKey}
     */
    public static void ignoreUnlessMisspelt(String source, String name, Collection<String> moreKeys) {
        ConfigSources.ignoreUnlessMisspelt(source, name, keysAnd(moreKeys));
    }

    /**
     * The error for a name that is no key, worded as every reader of configuration words it, for
     * frameworks that check the names of their own sources: {@code Unknown configuration key
     * 'fencedlock.lease-tme' (application properties); did you mean 'fencedlock.lease-time'? Known
     * keys: [...]}. It names {@code name} as written; the suggestion, when {@code name} resembles a
     * key, is written in the same form ({@code 'FENCEDLOCK_LEASE_TIME' (fencedlock.lease-time)} for
     * an environment variable); the known keys are {@link #keys()} and {@code moreKeys}.
     *
     * @param source where {@code name} was written, e.g. {@code "application properties"}; {@code
     *     null} to leave it out
     * @param name the name exactly as written, in either form
     * @param moreKeys keys the caller owns besides {@link #keys()}; may be empty
     * @return the exception, for the caller to throw
     */
    public static IllegalArgumentException unknownKey(String source, String name, Collection<String> moreKeys) {
        return new IllegalArgumentException(UnknownKeyMessage.of(source, name, keysAnd(moreKeys)));
    }

    private static List<String> keysAnd(Collection<String> moreKeys) {
        List<String> known = new ArrayList<>(keys());
        known.addAll(moreKeys);
        return known;
    }

    /**
     * Parses a duration the way configuration values are written ({@code 500ms}, {@code 30s},
     * {@code 2m}, {@code 1h}, {@code 1d} or ISO-8601), for applications that read their own
     * settings in the same style.
     *
     * @throws IllegalArgumentException naming {@code key} and the value when it cannot be read
     */
    public static Duration parseDuration(String key, String value) {
        return DurationFormat.parse(key, value);
    }

    /** Every key known here: the common keys and those of every provider on the classpath. */
    public static List<String> keys() {
        return ProviderRegistry.knownKeys();
    }

    /** The environment variable that carries {@code key}, e.g. {@code FENCEDLOCK_LEASE_TIME}. */
    public static String environmentVariable(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** The backend name, e.g. {@code redlock}; always present. */
    public String backend() {
        return backend;
    }

    /** The backend that grants leases while {@link #backend()} cannot answer; empty (the default) for none. */
    public Optional<String> fallback() {
        return Optional.ofNullable(fallback);
    }

    /**
     * When the fallback takes over and when the primary takes back ({@value LockConfig#FALLBACK_TAKEOVER});
     * default {@link FallbackTakeover#WAIT_OUT}. Without a fallback it has no effect.
     */
    public FallbackTakeover fallbackTakeover() {
        return fallbackTakeover;
    }

    /** Lease length of auto-renewing leases, and the basis of the renewal period. Default 30s. */
    public Duration leaseTime() {
        return leaseTime;
    }

    /**
     * Longest time auto-renewal keeps one lease alive, at least {@link #leaseTime()}; empty (the
     * default) means no cap.
     */
    public Optional<Duration> maxHoldTime() {
        return Optional.ofNullable(maxHoldTime);
    }

    /**
     * The {@code fencedlock.<backend>.*} values set for {@code backend}, checked by its provider;
     * empty settings when none were set.
     */
    public BackendSettings settings(String backend) {
        BackendSettings settings = backendSettings.get(backend);
        return settings != null ? settings : BackendSettings.of(backend, Map.of());
    }

    /** Every value of this configuration by key, as strings (durations in ISO-8601). */
    public Map<String, String> values() {
        Map<String, String> values = new TreeMap<>();
        values.put(BACKEND, backend);
        if (fallback != null) {
            values.put(FALLBACK, fallback);
        }
        values.put(FALLBACK_TAKEOVER, fallbackTakeover.value());
        values.put(LEASE_TIME, leaseTime.toString());
        if (maxHoldTime != null) {
            values.put(MAX_HOLD_TIME, maxHoldTime.toString());
        }
        backendSettings.values().forEach(settings -> values.putAll(settings.values()));
        return values;
    }

    /** A builder holding this configuration's values, to derive a changed copy. */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.backend = backend;
        builder.fallback = fallback;
        builder.leaseTime = leaseTime;
        builder.maxHoldTime = maxHoldTime;
        builder.fallbackTakeover = fallbackTakeover;
        backendSettings.values().forEach(settings -> builder.backendValues.putAll(settings.values()));
        return builder;
    }

    /** Lists every setting; credentials in URIs are masked. */
    @Override
    public String toString() {
        StringJoiner text = new StringJoiner(", ", "LockConfig{", "}");
        text.add("backend=" + backend);
        if (fallback != null) {
            text.add("fallback=" + fallback);
        }
        text.add("fallbackTakeover=" + fallbackTakeover.value());
        text.add("leaseTime=" + DurationFormat.format(leaseTime));
        text.add("maxHoldTime=" + (maxHoldTime == null ? "none" : DurationFormat.format(maxHoldTime)));
        backendSettings.forEach((name, settings) -> text.add(name + "=" + settings));
        return text.toString();
    }

    /**
     * Builds a {@link LockConfig}. Each setter validates its value at once and throws {@link
     * IllegalArgumentException} naming the configuration key and the value; {@link #build()} checks
     * the whole. Not thread-safe.
     */
    public static final class Builder {
        private String backend;
        private String fallback;
        private Duration leaseTime = Duration.ofSeconds(30);
        private Duration maxHoldTime;
        private FallbackTakeover fallbackTakeover = FallbackTakeover.WAIT_OUT;
        private final Map<String, String> backendValues = new TreeMap<>();

        private Builder() {}

        /** Required. The backend name; checked against the providers on the classpath. */
        public Builder backend(String backend) {
            this.backend = backendName(BACKEND, backend);
            return this;
        }

        /**
         * Default none. A backend to grant leases while {@link #backend} cannot answer; read "The
         * fallback" on {@link LockConfig} and docs/guarantees.md first. It must differ from the
         * backend and is configured with its own keys.
         */
        public Builder fallback(String fallback) {
            this.fallback = backendName(FALLBACK, fallback);
            return this;
        }

        /**
         * Default {@link FallbackTakeover#WAIT_OUT}. {@link FallbackTakeover#IMMEDIATE} lets two
         * holders overlap around every switch between the backends; only fenced effects are safe
         * then (read "The fallback" on {@link LockConfig}).
         */
        public Builder fallbackTakeover(FallbackTakeover fallbackTakeover) {
            if (fallbackTakeover == null) {
                throw new IllegalArgumentException(FALLBACK_TAKEOVER + " must not be null");
            }
            this.fallbackTakeover = fallbackTakeover;
            return this;
        }

        /** Default 30s. Must be positive. */
        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = DurationFormat.requirePositive(LEASE_TIME, leaseTime);
            return this;
        }

        /**
         * Default none. Must be positive, and {@link #build()} requires it to be at least the lease
         * time.
         */
        public Builder maxHoldTime(Duration maxHoldTime) {
            this.maxHoldTime = DurationFormat.requirePositive(MAX_HOLD_TIME, maxHoldTime);
            return this;
        }

        /**
         * Sets any key, common or a backend's, from its written form, exactly as a properties file
         * would; whitespace around the value is removed. A backend's key is checked at once by its
         * provider.
         *
         * @throws IllegalArgumentException if the key is not a {@code fencedlock.*} key known here
         *     or to a provider on the classpath (the message lists the known keys), or the value is
         *     unusable
         */
        public Builder set(String key, String value) {
            if (key == null || !key.startsWith(PREFIX)) {
                throw new IllegalArgumentException(
                        "Configuration key '" + key + "' does not start with '" + PREFIX + "'");
            }
            if (value == null) {
                throw new IllegalArgumentException(key + " must not be null");
            }
            String text = value.strip();
            switch (key) {
                case BACKEND -> backend(text);
                case FALLBACK -> fallback(text);
                case FALLBACK_TAKEOVER -> fallbackTakeover(FallbackTakeover.parse(text));
                case LEASE_TIME -> leaseTime(DurationFormat.parsePositive(LEASE_TIME, text));
                case MAX_HOLD_TIME -> maxHoldTime(DurationFormat.parsePositive(MAX_HOLD_TIME, text));
                default -> {
                    ProviderRegistry.validate(key, text);
                    backendValues.put(key, text);
                }
            }
            return this;
        }

        /** Sets a duration-valued key (written in ISO-8601, which every duration key reads). */
        public Builder set(String key, Duration value) {
            if (value == null) {
                throw new IllegalArgumentException(key + " must not be null");
            }
            return set(key, value.toString());
        }

        /** Sets a list-valued key, such as a backend's node list; the entries are joined with commas. */
        public Builder set(String key, List<String> values) {
            if (values == null) {
                throw new IllegalArgumentException(key + " must not be null");
            }
            return set(key, String.join(",", values));
        }

        /** Removes a backend key set earlier, so that the backend's default applies again. */
        public Builder unset(String key) {
            backendValues.remove(key);
            return this;
        }

        /**
         * @throws IllegalArgumentException if no backend was set (the message lists the backends on
         *     the classpath), the fallback equals the backend, {@code fencedlock.max-hold-time} is
         *     shorter than {@code fencedlock.lease-time}, or a backend's provider rejects its
         *     settings as a whole
         */
        public LockConfig build() {
            if (backend == null) {
                throw new IllegalArgumentException(
                        BACKEND + " is required; backends on the classpath: " + ProviderRegistry.availableBackends());
            }
            if (backend.equals(fallback)) {
                throw new IllegalArgumentException(FALLBACK + " '" + fallback + "' is the same as " + BACKEND
                        + "; a fallback must be another backend (backends on the classpath: "
                        + ProviderRegistry.availableBackends() + ")");
            }
            if (maxHoldTime != null && maxHoldTime.compareTo(leaseTime) < 0) {
                throw new IllegalArgumentException(MAX_HOLD_TIME + " (" + DurationFormat.format(maxHoldTime)
                        + ") is shorter than " + LEASE_TIME + " (" + DurationFormat.format(leaseTime)
                        + "): every auto-renewing lease is granted for the lease time, so it would be held"
                        + " past the cap; set " + MAX_HOLD_TIME + " to at least " + DurationFormat.format(leaseTime)
                        + " or lower " + LEASE_TIME);
            }
            return new LockConfig(this, ProviderRegistry.validateAll(backendValues));
        }

        private static String backendName(String key, String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException(
                        key + " must not be blank; backends on the classpath: " + ProviderRegistry.availableBackends());
            }
            String normalized = name.strip().toLowerCase(Locale.ROOT);
            if (!normalized.matches("[a-z0-9][a-z0-9_-]*")) {
                throw new IllegalArgumentException(key + " has '" + name
                        + "', which is not a backend name; backends on the classpath: "
                        + ProviderRegistry.availableBackends());
            }
            return normalized;
        }
    }
}
