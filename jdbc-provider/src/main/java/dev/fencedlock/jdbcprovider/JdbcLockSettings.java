package dev.fencedlock.jdbcprovider;

import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.BackendSettings;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The settings of the {@code jdbc} backend: which database holds the lock table and how to wait.
 * Set the keys like any key, e.g. {@code LockConfig.builder().backend("jdbc").set(JdbcLockSettings.URL,
 * "jdbc:postgresql://db/app")}, as {@code FENCEDLOCK_JDBC_URL} in the environment, or in {@code
 * fencedlock.properties}; or build them typed with {@link #builder()} for {@link
 * JdbcLocks#create(JdbcLockSettings)}, also on a {@link DataSource} the application already has.
 * Both paths run the same checks. Immutable and thread-safe.
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@code fencedlock.jdbc.url}</td><td>JDBC URL of the database holding the lock table
 *       (or hand in a {@link DataSource} with {@link Builder#dataSource})</td><td>required</td></tr>
 *   <tr><td>{@code fencedlock.jdbc.user}</td><td>database user</td><td>none (the URL's)</td></tr>
 *   <tr><td>{@code fencedlock.jdbc.password}</td><td>database password</td><td>none</td></tr>
 *   <tr><td>{@code fencedlock.jdbc.table}</td><td>lock table, optionally schema-qualified</td>
 *       <td>{@code fencedlock_lock}</td></tr>
 *   <tr><td>{@code fencedlock.jdbc.poll-interval}</td><td>longest pause between two attempts of a
 *       waiting acquisition; pauses start at 10 ms and double up to it (PostgreSQL wakes waiters
 *       on release with {@code NOTIFY}, and others of this JVM are woken by releases here)</td>
 *       <td>250ms</td></tr>
 *   <tr><td>{@code fencedlock.jdbc.operation-timeout}</td><td>the per-attempt timeout: the
 *       longest one attempt to acquire (or one extension, or one release) may take, from borrowing
 *       the connection to the last reply. It bounds the wait for a connection, each statement's
 *       network timeout (set per statement from what is left) and each statement's run time on the
 *       server ({@code statement_timeout} on PostgreSQL, {@code max_statement_time} on MariaDB), so
 *       that a statement the client gave up on does not change the lock row later. An acquisition
 *       returns or throws within its wait plus this timeout</td><td>2s</td></tr>
 * </table>
 */
public final class JdbcLockSettings {
    public static final String URL = "fencedlock.jdbc.url";
    public static final String USER = "fencedlock.jdbc.user";
    public static final String PASSWORD = "fencedlock.jdbc.password";
    public static final String TABLE = "fencedlock.jdbc.table";
    public static final String POLL_INTERVAL = "fencedlock.jdbc.poll-interval";
    public static final String OPERATION_TIMEOUT = "fencedlock.jdbc.operation-timeout";

    /** The table the shipped migration creates. */
    public static final String DEFAULT_TABLE = "fencedlock_lock";

    /** Where the Flyway migration creating {@value #DEFAULT_TABLE} lives. */
    public static final String MIGRATION_LOCATION = "classpath:db/fencedlock/lock/migration";

    /** The default per-attempt timeout ({@value #OPERATION_TIMEOUT}). */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(2);

    /** Every key of the backend. */
    public static final Set<String> KEYS = Set.of(URL, USER, PASSWORD, TABLE, POLL_INTERVAL, OPERATION_TIMEOUT);

    private static final Pattern TABLE_NAME =
            Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final DataSource dataSource;
    private final String url;
    private final String user;
    private final String password;
    private final String table;
    private final Duration pollInterval;
    private final Duration operationTimeout;

    private JdbcLockSettings(Builder builder) {
        this.dataSource = builder.dataSource;
        this.url = builder.url;
        this.user = builder.user;
        this.password = builder.password;
        this.table = builder.table;
        this.pollInterval = builder.pollInterval;
        this.operationTimeout = builder.operationTimeout;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads the values that were set; absent keys take their defaults.
     *
     * @throws IllegalArgumentException naming the key and the value for a value that cannot be
     *     used, or if no URL was set
     */
    public static JdbcLockSettings from(BackendSettings settings) {
        return builder(settings).build();
    }

    /**
     * A builder holding the values that were set, for example to add the application's {@link
     * DataSource} to the other settings of a {@link LockConfig}.
     *
     * @throws IllegalArgumentException naming the key and the value for a value that cannot be used
     */
    public static Builder builder(BackendSettings settings) {
        Builder builder = builder();
        settings.get(URL).ifPresent(builder::url);
        settings.get(USER).ifPresent(builder::user);
        settings.get(PASSWORD).ifPresent(builder::password);
        settings.get(TABLE).ifPresent(builder::table);
        settings.positiveDuration(POLL_INTERVAL).ifPresent(builder::pollInterval);
        settings.positiveDuration(OPERATION_TIMEOUT).ifPresent(builder::operationTimeout);
        return builder;
    }

    /** The application's data source of the lock table; empty when the settings name a URL. */
    public Optional<DataSource> dataSource() {
        return Optional.ofNullable(dataSource);
    }

    /** The JDBC URL; empty when a data source was handed in. */
    public Optional<String> url() {
        return Optional.ofNullable(url);
    }

    /** The database user for the URL; empty for the URL's own (or with a data source). */
    public Optional<String> user() {
        return Optional.ofNullable(user);
    }

    /** The database password for the URL; empty for none. Never printed by {@link #toString()}. */
    public Optional<String> password() {
        return Optional.ofNullable(password);
    }

    /** The lock table. Default {@value #DEFAULT_TABLE}. */
    public String table() {
        return table;
    }

    /** Longest pause between attempts while waiting. Default 250ms. */
    public Duration pollInterval() {
        return pollInterval;
    }

    /** How long one attempt, extension or release may take, all statements included. Default 2s. */
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /** Lists the settings; the URL without credentials or parameters, the password never. */
    @Override
    public String toString() {
        return "JdbcLockSettings{"
                + (url != null
                        ? maskUrl(url)
                        : "data source " + dataSource.getClass().getSimpleName())
                + " table " + table + ", pollInterval=" + pollInterval + ", operationTimeout="
                + operationTimeout + "}";
    }

    /** {@code url} cut before any {@code ?} or {@code ;} parameters, with user information removed. */
    private static String maskUrl(String url) {
        return url.split("[?;]", 2)[0].replaceFirst("//[^/@]*@", "//");
    }

    /**
     * Builds {@link JdbcLockSettings}. Each setter checks its value at once and throws {@link
     * IllegalArgumentException} naming the key and the value. Not thread-safe.
     */
    public static final class Builder {
        private DataSource dataSource;
        private String url;
        private String user;
        private String password;
        private String table = DEFAULT_TABLE;
        private Duration pollInterval = Duration.ofMillis(250);
        private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;

        private Builder() {}

        /** The application's own (preferably pooled) data source; excludes {@link #url}. */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** A JDBC URL ({@code jdbc:h2:}, {@code jdbc:postgresql:} or {@code jdbc:mariadb:}); excludes {@link #dataSource}. */
        public Builder url(String url) {
            String trimmed = url == null ? "" : url.strip();
            if (!trimmed.startsWith("jdbc:")) {
                throw new IllegalArgumentException(URL + " must be a JDBC URL starting with jdbc:, got '"
                        + (url == null ? "null" : maskUrl(url)) + "'");
            }
            this.url = trimmed;
            return this;
        }

        public Builder user(String user) {
            this.user = requireNotBlank(USER, user);
            return this;
        }

        /** Never printed. */
        public Builder password(String password) {
            this.password = Objects.requireNonNull(password, PASSWORD);
            return this;
        }

        /** Default {@value #DEFAULT_TABLE}. Letters, digits and underscores, optionally {@code schema.table}. */
        public Builder table(String table) {
            String trimmed = table == null ? "" : table.strip();
            if (!TABLE_NAME.matcher(trimmed).matches()) {
                throw new IllegalArgumentException(TABLE + " must be a table name of letters, digits and underscores,"
                        + " optionally schema-qualified, got '" + table + "'");
            }
            this.table = trimmed;
            return this;
        }

        /** Default 250ms. Must be positive. */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = positive(POLL_INTERVAL, pollInterval);
            return this;
        }

        /**
         * Default 2s. Between 10ms and about 24 days (an int of milliseconds), in whole
         * milliseconds: one attempt borrows a connection and runs two statements in it.
         */
        public Builder operationTimeout(Duration operationTimeout) {
            positive(OPERATION_TIMEOUT, operationTimeout);
            if (operationTimeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0
                    || operationTimeout.toMillis() < 10
                    || operationTimeout.toNanos() % 1_000_000 != 0) {
                throw new IllegalArgumentException(OPERATION_TIMEOUT + " must be whole milliseconds between 10ms and "
                        + Integer.MAX_VALUE + "ms, got " + operationTimeout);
            }
            this.operationTimeout = operationTimeout;
            return this;
        }

        /**
         * @throws IllegalArgumentException if neither or both of a URL and a data source were given
         */
        public JdbcLockSettings build() {
            if ((url == null) == (dataSource == null)) {
                throw new IllegalArgumentException(
                        url == null
                                ? URL + " is required for backend jdbc (or hand in a DataSource)"
                                : "give either " + URL + " or a DataSource, not both");
            }
            return new JdbcLockSettings(this);
        }

        private static String requireNotBlank(String key, String value) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(key + " must not be blank, got '" + value + "'");
            }
            return value.strip();
        }

        private static Duration positive(String key, Duration value) {
            if (value == null || value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(key + " must be positive, got " + value);
            }
            return value;
        }
    }
}
