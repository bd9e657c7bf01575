package dev.fencedlock;

import dev.fencedlock.internal.config.ConfigSources;
import dev.fencedlock.internal.config.DurationFormat;
import dev.fencedlock.internal.config.ProviderRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * Immutable configuration of a {@link LockClient}. Build it from properties ({@link
 * #fromProperties}), from the environment ({@link #fromEnvironment}) or with {@link #builder()}.
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@code fencedlock.backend}</td><td>{@code redlock}, {@code zookeeper} or {@code local}</td><td>required</td></tr>
 *   <tr><td>{@code fencedlock.lease-time}</td><td>lease length of auto-renewing leases</td><td>30s</td></tr>
 *   <tr><td>{@code fencedlock.max-hold-time}</td><td>cap on how long auto-renewal keeps a lease</td><td>none</td></tr>
 *   <tr><td>{@code fencedlock.redlock.nodes}</td><td>comma-separated {@code redis://} / {@code rediss://} URIs</td><td>required for redlock</td></tr>
 *   <tr><td>{@code fencedlock.redlock.node-timeout}</td><td>per-node connect and response timeout</td><td>50ms</td></tr>
 *   <tr><td>{@code fencedlock.redlock.drift-factor}</td><td>clock drift allowance as a fraction of the lease, in [0, 0.5)</td><td>0.01</td></tr>
 *   <tr><td>{@code fencedlock.redlock.retry-delay}</td><td>mean randomised delay between attempts</td><td>200ms</td></tr>
 *   <tr><td>{@code fencedlock.redlock.restart-quarantine}</td><td>how long a restarted node is kept out of the quorum; set it to the longest lease any client uses (longer leases are then rejected)</td><td>the longest lease this client has used</td></tr>
 *   <tr><td>{@code fencedlock.zookeeper.connect}</td><td>ZooKeeper connect string</td><td>required for zookeeper</td></tr>
 *   <tr><td>{@code fencedlock.zookeeper.base-path}</td><td>root znode for locks</td><td>{@code /fencedlock}</td></tr>
 *   <tr><td>{@code fencedlock.zookeeper.session-timeout}</td><td>Curator session timeout</td><td>15s</td></tr>
 * </table>
 *
 * <p>Durations are written {@code 500ms}, {@code 30s}, {@code 2m} (or ISO-8601). Every bad value
 * is rejected with an {@link IllegalArgumentException} naming the key and the value; no bad value
 * is ever replaced by a default.
 */
public final class LockConfig {
    public static final String BACKEND = "fencedlock.backend";
    public static final String LEASE_TIME = "fencedlock.lease-time";
    public static final String MAX_HOLD_TIME = "fencedlock.max-hold-time";
    public static final String REDLOCK_NODES = "fencedlock.redlock.nodes";
    public static final String REDLOCK_NODE_TIMEOUT = "fencedlock.redlock.node-timeout";
    public static final String REDLOCK_DRIFT_FACTOR = "fencedlock.redlock.drift-factor";
    public static final String REDLOCK_RETRY_DELAY = "fencedlock.redlock.retry-delay";
    public static final String REDLOCK_RESTART_QUARANTINE = "fencedlock.redlock.restart-quarantine";
    public static final String ZOOKEEPER_CONNECT = "fencedlock.zookeeper.connect";
    public static final String ZOOKEEPER_BASE_PATH = "fencedlock.zookeeper.base-path";
    public static final String ZOOKEEPER_SESSION_TIMEOUT = "fencedlock.zookeeper.session-timeout";

    private static final String PREFIX = "fencedlock.";
    private static final Map<String, BiConsumer<Builder, String>> KEYS = keyTable();

    private final String backend;
    private final Duration leaseTime;
    private final Duration maxHoldTime;
    private final List<RedisNodeAddress> redlockNodes;
    private final Duration redlockNodeTimeout;
    private final double redlockDriftFactor;
    private final Duration redlockRetryDelay;
    private final Duration redlockRestartQuarantine;
    private final String zookeeperConnect;
    private final String zookeeperBasePath;
    private final Duration zookeeperSessionTimeout;

    private LockConfig(Builder builder) {
        this.backend = builder.backend;
        this.leaseTime = builder.leaseTime;
        this.maxHoldTime = builder.maxHoldTime;
        this.redlockNodes = List.copyOf(builder.redlockNodes);
        this.redlockNodeTimeout = builder.redlockNodeTimeout;
        this.redlockDriftFactor = builder.redlockDriftFactor;
        this.redlockRetryDelay = builder.redlockRetryDelay;
        this.redlockRestartQuarantine = builder.redlockRestartQuarantine;
        this.zookeeperConnect = builder.zookeeperConnect;
        this.zookeeperBasePath = builder.zookeeperBasePath;
        this.zookeeperSessionTimeout = builder.zookeeperSessionTimeout;
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
            String key = entry.getKey();
            if (!key.startsWith(PREFIX)) {
                continue;
            }
            BiConsumer<Builder, String> setter = KEYS.get(key);
            if (setter == null) {
                throw new IllegalArgumentException(
                        "Unknown configuration key '" + key + "'; known keys are " + KEYS.keySet());
            }
            setter.accept(builder, entry.getValue());
        }
        return builder.build();
    }

    /**
     * Reads configuration from, highest precedence first: system properties, environment
     * variables (the key upper-cased with dots and dashes as underscores, e.g. {@code
     * FENCEDLOCK_REDLOCK_NODE_TIMEOUT}), and a {@code fencedlock.properties} resource on the
     * context class loader's classpath.
     */
    public static LockConfig fromEnvironment() {
        return fromMap(ConfigSources.merge(
                System.getProperties(),
                System.getenv(),
                Thread.currentThread().getContextClassLoader(),
                KEYS.keySet()));
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

    /** All configuration keys this version knows. */
    public static List<String> keys() {
        return List.copyOf(KEYS.keySet());
    }

    /** The environment variable that carries {@code key}, e.g. {@code FENCEDLOCK_LEASE_TIME}. */
    public static String environmentVariable(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    private static Map<String, BiConsumer<Builder, String>> keyTable() {
        Map<String, BiConsumer<Builder, String>> table = new LinkedHashMap<>();
        table.put(BACKEND, Builder::backend);
        table.put(LEASE_TIME, (b, v) -> b.leaseTime(DurationFormat.parse(LEASE_TIME, v)));
        table.put(MAX_HOLD_TIME, (b, v) -> b.maxHoldTime(DurationFormat.parse(MAX_HOLD_TIME, v)));
        table.put(REDLOCK_NODES, (b, v) -> b.redlockNodes(splitNodes(v)));
        table.put(REDLOCK_NODE_TIMEOUT, (b, v) -> b.redlockNodeTimeout(DurationFormat.parse(REDLOCK_NODE_TIMEOUT, v)));
        table.put(REDLOCK_DRIFT_FACTOR, (b, v) -> b.redlockDriftFactor(parseFactor(v)));
        table.put(REDLOCK_RETRY_DELAY, (b, v) -> b.redlockRetryDelay(DurationFormat.parse(REDLOCK_RETRY_DELAY, v)));
        table.put(
                REDLOCK_RESTART_QUARANTINE,
                (b, v) -> b.redlockRestartQuarantine(DurationFormat.parse(REDLOCK_RESTART_QUARANTINE, v)));
        table.put(ZOOKEEPER_CONNECT, Builder::zookeeperConnect);
        table.put(ZOOKEEPER_BASE_PATH, Builder::zookeeperBasePath);
        table.put(
                ZOOKEEPER_SESSION_TIMEOUT,
                (b, v) -> b.zookeeperSessionTimeout(DurationFormat.parse(ZOOKEEPER_SESSION_TIMEOUT, v)));
        return table;
    }

    private static List<String> splitNodes(String value) {
        List<String> nodes = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            if (part.isBlank()) {
                throw new IllegalArgumentException(REDLOCK_NODES + " has an empty entry in '" + maskEach(value)
                        + "'; expected comma-separated redis:// URIs");
            }
            nodes.add(part.trim());
        }
        return nodes;
    }

    private static String maskEach(String commaSeparated) {
        StringBuilder masked = new StringBuilder();
        for (String part : commaSeparated.split(",", -1)) {
            masked.append(masked.length() == 0 ? "" : ",").append(RedisNodeAddress.mask(part));
        }
        return masked.toString();
    }

    private static double parseFactor(String value) {
        try {
            return Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    REDLOCK_DRIFT_FACTOR + " has '" + value + "', which is not a number; expected e.g. 0.01");
        }
    }

    /** The backend name, e.g. {@code redlock}; always present. */
    public String backend() {
        return backend;
    }

    /** Lease length of auto-renewing leases, and the basis of the renewal period. Default 30s. */
    public Duration leaseTime() {
        return leaseTime;
    }

    /** Longest time auto-renewal keeps one lease alive; empty (the default) means no cap. */
    public Optional<Duration> maxHoldTime() {
        return Optional.ofNullable(maxHoldTime);
    }

    /** Redis masters for the redlock backend; empty when not configured. */
    public List<RedisNodeAddress> redlockNodes() {
        return redlockNodes;
    }

    /** Per-node connect and response timeout. Default 50ms. */
    public Duration redlockNodeTimeout() {
        return redlockNodeTimeout;
    }

    /** Clock drift allowance as a fraction of the lease; 2 ms are added. Default 0.01. */
    public double redlockDriftFactor() {
        return redlockDriftFactor;
    }

    /** Mean delay between acquisition attempts, randomised. Default 200ms. */
    public Duration redlockRetryDelay() {
        return redlockRetryDelay;
    }

    /** How long a restarted node stays out of the quorum; empty means this client's longest lease. */
    public Optional<Duration> redlockRestartQuarantine() {
        return Optional.ofNullable(redlockRestartQuarantine);
    }

    /** ZooKeeper connect string; empty when not configured. */
    public Optional<String> zookeeperConnect() {
        return Optional.ofNullable(zookeeperConnect);
    }

    /** Root znode under which lock nodes are created. Default {@code /fencedlock}. */
    public String zookeeperBasePath() {
        return zookeeperBasePath;
    }

    /** Curator session timeout. Default 15s. */
    public Duration zookeeperSessionTimeout() {
        return zookeeperSessionTimeout;
    }

    /** A builder holding this configuration's values, to derive a changed copy. */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.backend = backend;
        builder.leaseTime = leaseTime;
        builder.maxHoldTime = maxHoldTime;
        builder.redlockNodes = new ArrayList<>(redlockNodes);
        builder.redlockNodeTimeout = redlockNodeTimeout;
        builder.redlockDriftFactor = redlockDriftFactor;
        builder.redlockRetryDelay = redlockRetryDelay;
        builder.redlockRestartQuarantine = redlockRestartQuarantine;
        builder.zookeeperConnect = zookeeperConnect;
        builder.zookeeperBasePath = zookeeperBasePath;
        builder.zookeeperSessionTimeout = zookeeperSessionTimeout;
        return builder;
    }

    /** Lists every setting; passwords in node URIs are masked. */
    @Override
    public String toString() {
        return "LockConfig{backend=" + backend + ", leaseTime=" + DurationFormat.format(leaseTime)
                + ", maxHoldTime=" + (maxHoldTime == null ? "none" : DurationFormat.format(maxHoldTime))
                + ", redlockNodes=" + redlockNodes + ", redlockNodeTimeout=" + DurationFormat.format(redlockNodeTimeout)
                + ", redlockDriftFactor=" + redlockDriftFactor + ", redlockRetryDelay="
                + DurationFormat.format(redlockRetryDelay) + ", redlockRestartQuarantine="
                + (redlockRestartQuarantine == null ? "lease time" : DurationFormat.format(redlockRestartQuarantine))
                + ", zookeeperConnect=" + zookeeperConnect + ", zookeeperBasePath=" + zookeeperBasePath
                + ", zookeeperSessionTimeout=" + DurationFormat.format(zookeeperSessionTimeout) + "}";
    }

    /**
     * Builds a {@link LockConfig}. Each setter validates its value at once and throws {@link
     * IllegalArgumentException} naming the configuration key and the value. Not thread-safe.
     */
    public static final class Builder {
        private String backend;
        private Duration leaseTime = Duration.ofSeconds(30);
        private Duration maxHoldTime;
        private List<RedisNodeAddress> redlockNodes = new ArrayList<>();
        private Duration redlockNodeTimeout = Duration.ofMillis(50);
        private double redlockDriftFactor = 0.01;
        private Duration redlockRetryDelay = Duration.ofMillis(200);
        private Duration redlockRestartQuarantine;
        private String zookeeperConnect;
        private String zookeeperBasePath = "/fencedlock";
        private Duration zookeeperSessionTimeout = Duration.ofSeconds(15);

        private Builder() {}

        /** Required. The backend name; checked against the providers on the classpath. */
        public Builder backend(String backend) {
            if (backend == null || backend.isBlank()) {
                throw new IllegalArgumentException(BACKEND + " must not be blank; backends on the classpath: "
                        + ProviderRegistry.availableBackends());
            }
            this.backend = backend.trim().toLowerCase(Locale.ROOT);
            return this;
        }

        /** Default 30s. Must be positive. */
        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = positive(LEASE_TIME, leaseTime);
            return this;
        }

        /** Default none. Must be positive. */
        public Builder maxHoldTime(Duration maxHoldTime) {
            this.maxHoldTime = positive(MAX_HOLD_TIME, maxHoldTime);
            return this;
        }

        /** Replaces the node list with these {@code redis://} or {@code rediss://} URIs. */
        public Builder redlockNodes(List<String> uris) {
            if (uris == null || uris.isEmpty()) {
                throw new IllegalArgumentException(REDLOCK_NODES + " must list at least one redis:// URI");
            }
            List<RedisNodeAddress> parsed = new ArrayList<>();
            for (String uri : uris) {
                RedisNodeAddress node = RedisNodeAddress.parse(REDLOCK_NODES, uri);
                if (parsed.stream().anyMatch(n -> n.host().equals(node.host()) && n.port() == node.port())) {
                    throw new IllegalArgumentException(REDLOCK_NODES + " lists " + node.host() + ":" + node.port()
                            + " twice; Redlock needs independent masters");
                }
                parsed.add(node);
            }
            this.redlockNodes = parsed;
            return this;
        }

        /** Varargs form of {@link #redlockNodes(List)}. */
        public Builder redlockNodes(String... uris) {
            return redlockNodes(uris == null ? List.of() : List.of(uris));
        }

        /** Default 50ms. Must be positive. */
        public Builder redlockNodeTimeout(Duration timeout) {
            this.redlockNodeTimeout = positive(REDLOCK_NODE_TIMEOUT, timeout);
            return this;
        }

        /** Default 0.01. Must be in [0, 0.5). */
        public Builder redlockDriftFactor(double factor) {
            if (!(factor >= 0.0 && factor < 0.5)) {
                throw new IllegalArgumentException(REDLOCK_DRIFT_FACTOR + " must be in [0, 0.5), got " + factor);
            }
            this.redlockDriftFactor = factor;
            return this;
        }

        /** Default 200ms. Must be positive. */
        public Builder redlockRetryDelay(Duration delay) {
            this.redlockRetryDelay = positive(REDLOCK_RETRY_DELAY, delay);
            return this;
        }

        /**
         * Must be positive. The redlock backend rejects leases and extensions longer than it. Default:
         * the longest lease this client has used, which is per client: set it to the longest lease any
         * client of the same nodes uses whenever clients' lease times differ.
         */
        public Builder redlockRestartQuarantine(Duration quarantine) {
            this.redlockRestartQuarantine = positive(REDLOCK_RESTART_QUARANTINE, quarantine);
            return this;
        }

        /** Required for the zookeeper backend, e.g. {@code zk1:2181,zk2:2181,zk3:2181}. */
        public Builder zookeeperConnect(String connect) {
            if (connect == null || connect.isBlank()) {
                throw new IllegalArgumentException(ZOOKEEPER_CONNECT + " must not be blank");
            }
            if (connect.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException(
                        ZOOKEEPER_CONNECT + " must not contain whitespace, got '" + connect + "'");
            }
            this.zookeeperConnect = connect;
            return this;
        }

        /** Default {@code /fencedlock}. An absolute znode path without a trailing slash. */
        public Builder zookeeperBasePath(String basePath) {
            if (basePath == null
                    || !basePath.startsWith("/")
                    || basePath.length() < 2
                    || basePath.endsWith("/")
                    || basePath.contains("//")) {
                throw new IllegalArgumentException(ZOOKEEPER_BASE_PATH
                        + " must be an absolute znode path like /fencedlock, without a trailing slash, got '"
                        + basePath + "'");
            }
            this.zookeeperBasePath = basePath;
            return this;
        }

        /** Default 15s. Must be positive. */
        public Builder zookeeperSessionTimeout(Duration timeout) {
            this.zookeeperSessionTimeout = positive(ZOOKEEPER_SESSION_TIMEOUT, timeout);
            return this;
        }

        /**
         * @throws IllegalArgumentException if no backend was set (the message lists the backends on
         *     the classpath)
         */
        public LockConfig build() {
            if (backend == null) {
                throw new IllegalArgumentException(
                        BACKEND + " is required; backends on the classpath: " + ProviderRegistry.availableBackends());
            }
            return new LockConfig(this);
        }

        private static Duration positive(String key, Duration value) {
            if (value == null) {
                throw new IllegalArgumentException(key + " must not be null");
            }
            if (value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(key + " must be positive, got " + DurationFormat.format(value));
            }
            return value;
        }
    }
}
