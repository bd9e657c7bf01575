package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.BackendSettings;
import dev.fencedlock.spi.DurationFormat;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.common.PathUtils;

/**
 * The settings of the {@code zookeeper} backend: typed, from {@link #builder()} for {@link
 * ZooKeeperLocks#create(ZooKeeperSettings)}, or read from the configuration keys with {@link
 * #from}. Set the keys like any key, e.g. {@code
 * LockConfig.builder().backend("zookeeper").set(ZooKeeperSettings.CONNECT, "zk1:2181,zk2:2181")},
 * or as {@code FENCEDLOCK_ZOOKEEPER_CONNECT} in the environment. Both paths run the same checks.
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@code fencedlock.zookeeper.connect}</td><td>connect string {@code host:port[,host:port...][/chroot]}</td><td>required (unless the client is built on an application's Curator, see {@link ZooKeeperLocks})</td></tr>
 *   <tr><td>{@code fencedlock.zookeeper.base-path}</td><td>root znode for locks</td><td>{@code /fencedlock}</td></tr>
 *   <tr><td>{@code fencedlock.zookeeper.session-timeout}</td><td>Curator session timeout</td><td>15s</td></tr>
 *   <tr><td>{@code fencedlock.zookeeper.operation-timeout}</td><td>the per-attempt bound of an acquisition: how long one
 *       request of an acquisition (or its wait for a connection) may run past the caller's wait</td><td>1s</td></tr>
 *   <tr><td>{@code fencedlock.zookeeper.token-retention}</td><td>how long the token node of a lock name that nobody
 *       uses is kept</td><td>1d</td></tr>
 * </table>
 *
 * <p><b>Operation timeout.</b> Every acquisition returns or throws within its {@code wait} plus one
 * operation timeout, whatever the ensemble does (silent, refusing connections, answering late,
 * reconnecting): each request it sends, and its wait for a connection, ends at the earlier of
 * {@code operation-timeout} from its start and {@code wait + operation-timeout} from the call, and
 * Curator's retry policy is not used. So with the default a {@code tryAcquire(Duration.ZERO)} on a
 * silent ensemble ends within about 1 s, a {@code tryAcquire(500 ms)} within 1.5 s. It must be
 * below the session timeout: a request that waits as long as the session lasts has already lost
 * what it asked for.
 *
 * <p><b>Token retention.</b> The token node of a lock name ({@link ZooKeeperLocks#tokenPath}) is
 * deleted once the last token it issued is older than this, by the wall clock of the client that
 * sweeps; the next grant of the name then gets a token from the clock alone, still above every
 * earlier one (see {@link LockTokens} for the argument and its clock assumption). At least 1 minute.
 *
 * <p>Immutable and thread-safe.
 */
public final class ZooKeeperSettings {
    public static final String CONNECT = "fencedlock.zookeeper.connect";
    public static final String BASE_PATH = "fencedlock.zookeeper.base-path";
    public static final String SESSION_TIMEOUT = "fencedlock.zookeeper.session-timeout";
    public static final String OPERATION_TIMEOUT = "fencedlock.zookeeper.operation-timeout";
    public static final String TOKEN_RETENTION = "fencedlock.zookeeper.token-retention";

    /** Every key of the backend. */
    public static final Set<String> KEYS =
            Set.of(CONNECT, BASE_PATH, SESSION_TIMEOUT, OPERATION_TIMEOUT, TOKEN_RETENTION);

    static final String DEFAULT_BASE_PATH = "/fencedlock";
    static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(15);
    static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(1);
    static final Duration DEFAULT_TOKEN_RETENTION = Duration.ofDays(1);

    /**
     * The shortest token retention accepted: well above any clock step NTP corrects by slewing, so
     * that the retention, not the clocks, decides when a token node goes.
     */
    static final Duration MIN_TOKEN_RETENTION = Duration.ofMinutes(1);

    private final String connect;
    private final CuratorFramework curator;
    private final String basePath;
    private final Duration sessionTimeout;
    private final Duration operationTimeout;
    private final Duration tokenRetention;

    private ZooKeeperSettings(Builder builder) {
        this.connect = builder.connect;
        this.curator = builder.curator;
        this.basePath = builder.basePath;
        this.sessionTimeout = builder.sessionTimeout;
        this.operationTimeout = builder.operationTimeout;
        this.tokenRetention = builder.tokenRetention;
    }

    /** An empty builder: every option at its default, neither a connect string nor a client set. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding the values of the keys that were set, each read and checked by the setter
     * of its option; for example to add the application's {@link CuratorFramework} to the other
     * settings of a {@link dev.fencedlock.LockConfig}.
     *
     * @throws IllegalArgumentException naming the key and the value for a value that cannot be used
     */
    public static Builder builder(BackendSettings settings) {
        Builder builder = builder();
        settings.get(CONNECT).ifPresent(builder::connect);
        settings.get(BASE_PATH).ifPresent(builder::basePath);
        settings.positiveDuration(SESSION_TIMEOUT).ifPresent(builder::sessionTimeout);
        settings.positiveDuration(OPERATION_TIMEOUT).ifPresent(builder::operationTimeout);
        settings.positiveDuration(TOKEN_RETENTION).ifPresent(builder::tokenRetention);
        return builder;
    }

    /**
     * Reads and checks the values that were set, as a configuration is checked key by key while it
     * is built: absent keys take their defaults, and a missing connect string gives an empty {@link
     * #connect()} (it is required when a client is created, unless one is built on the
     * application's Curator client).
     *
     * @throws IllegalArgumentException naming the key and the value for a malformed connect string
     *     (including a chroot that is not at its end), a base path that is not a usable znode path,
     *     a session timeout that is not positive or does not fit in an int of milliseconds, an
     *     operation timeout that is not positive, below 1 ms or not below the session timeout, or
     *     a token retention below {@link #MIN_TOKEN_RETENTION}
     */
    public static ZooKeeperSettings from(BackendSettings settings) {
        Builder builder = builder(settings);
        builder.requireConsistent();
        return new ZooKeeperSettings(builder);
    }

    private static Duration requireBelowSession(Duration operationTimeout, Duration sessionTimeout) {
        if (operationTimeout.toMillis() < 1) {
            throw new IllegalArgumentException(OPERATION_TIMEOUT + " must be at least 1ms, got " + operationTimeout);
        }
        if (operationTimeout.compareTo(sessionTimeout) >= 0) {
            throw new IllegalArgumentException(OPERATION_TIMEOUT + " must be below " + SESSION_TIMEOUT + " ("
                    + sessionTimeout + "): a request that waits as long as the session lasts has lost the lock it"
                    + " asked for; got " + operationTimeout);
        }
        return operationTimeout;
    }

    private static Duration requireRetention(Duration retention) {
        if (retention.compareTo(MIN_TOKEN_RETENTION) < 0) {
            throw new IllegalArgumentException(TOKEN_RETENTION + " must be at least " + MIN_TOKEN_RETENTION
                    + " so that the retention, not clock steps, decides when a token node goes; got " + retention);
        }
        return retention;
    }

    private static String requireValidConnect(String connect) {
        if (connect == null || connect.isEmpty() || connect.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException(
                    CONNECT + " must not be blank or contain whitespace, got '" + connect + "'");
        }
        int chroot = connect.indexOf('/');
        if (chroot >= 0 && connect.indexOf(',', chroot) >= 0) {
            // ConnectStringParser would take everything after the first '/' as the chroot, hosts
            // included, and silently connect to the first host alone
            throw new IllegalArgumentException(CONNECT + " has the chroot before the last host in '" + connect
                    + "'; the chroot goes once at the end: host1:port,host2:port/chroot");
        }
        try {
            if (new ConnectStringParser(connect).getServerAddresses().isEmpty()) {
                throw new IllegalArgumentException("no host given");
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    CONNECT + " is not a valid connect string: '" + connect
                            + "'; expected host:port[,host:port...][/chroot] (" + e.getMessage() + ")",
                    e);
        }
        return connect;
    }

    private static String requireValidBasePath(String basePath) {
        if (basePath == null || !basePath.startsWith("/") || basePath.length() < 2 || basePath.endsWith("/")) {
            throw new IllegalArgumentException(BASE_PATH
                    + " must be an absolute znode path like /fencedlock, without a trailing slash, got '" + basePath
                    + "'");
        }
        try {
            PathUtils.validatePath(basePath);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    BASE_PATH + " is not a valid znode path: '" + basePath + "' (" + e.getMessage() + ")", e);
        }
        if (basePath.equals("/zookeeper") || basePath.startsWith("/zookeeper/")) {
            throw new IllegalArgumentException(
                    BASE_PATH + " must not be under /zookeeper, which the server reserves, got '" + basePath + "'");
        }
        return basePath;
    }

    private static Duration requireIntMillis(Duration sessionTimeout) {
        if (sessionTimeout.toMillis() < 1 || sessionTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    SESSION_TIMEOUT + " must be between 1ms and " + Integer.MAX_VALUE + "ms, got " + sessionTimeout);
        }
        return sessionTimeout;
    }

    /** The connect string; empty when {@code fencedlock.zookeeper.connect} was not set. */
    public Optional<String> connect() {
        return Optional.ofNullable(connect);
    }

    /**
     * The application's Curator client the locks run on; empty when the backend builds and owns its
     * own from {@link #connect()}.
     */
    public Optional<CuratorFramework> curator() {
        return Optional.ofNullable(curator);
    }

    /** Root znode under which lock nodes are created. Default {@code /fencedlock}. */
    public String basePath() {
        return basePath;
    }

    /** Curator session timeout. Default 15s. */
    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    /**
     * The per-attempt bound of an acquisition (see the class description). Default 1s; always at
     * least 1 ms and below {@link #sessionTimeout()}.
     */
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /**
     * How long the token node of an unused lock name is kept (see the class description). Default
     * 1 day; at least {@link #MIN_TOKEN_RETENTION}.
     */
    public Duration tokenRetention() {
        return tokenRetention;
    }

    @Override
    public String toString() {
        return "ZooKeeperSettings{"
                + (curator != null ? "curator=" + curator.getClass().getSimpleName() : "connect=" + connect)
                + ", basePath=" + basePath + ", sessionTimeout=" + sessionTimeout + ", operationTimeout="
                + operationTimeout + ", tokenRetention=" + tokenRetention + "}";
    }

    /**
     * Builds {@link ZooKeeperSettings}: either a {@link #connect} string, for a Curator client the
     * backend builds and owns, or the application's own started {@link #curator}. Each setter checks
     * its value at once and throws {@link IllegalArgumentException} naming the key and the value;
     * {@link #build()} checks how they go together. Not thread-safe.
     */
    public static final class Builder {
        private String connect;
        private CuratorFramework curator;
        private String basePath = DEFAULT_BASE_PATH;
        private Duration sessionTimeout = DEFAULT_SESSION_TIMEOUT;
        private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;
        private Duration tokenRetention = DEFAULT_TOKEN_RETENTION;

        private Builder() {}

        /**
         * {@value #CONNECT}: {@code host:port[,host:port...][/chroot]}, for a Curator client the
         * backend builds, starts and closes. Default none; excludes {@link #curator}.
         */
        public Builder connect(String connect) {
            this.connect = requireValidConnect(connect);
            return this;
        }

        /**
         * The application's Curator client, started; the lock client does not close it. Its connect
         * string, session timeout, namespace and ACLs are the application's, so {@link #connect}
         * and {@link #sessionTimeout} do not apply to it. Default none; excludes {@link #connect}.
         */
        public Builder curator(CuratorFramework curator) {
            this.curator = Objects.requireNonNull(curator, "curator");
            return this;
        }

        /** As {@link #curator}, dropping a connect string read from the configuration. */
        Builder curatorInsteadOfConnect(CuratorFramework curator) {
            this.connect = null;
            return curator(curator);
        }

        /** {@value #BASE_PATH}: root znode for locks. Default {@code /fencedlock}. */
        public Builder basePath(String basePath) {
            this.basePath = requireValidBasePath(basePath);
            return this;
        }

        /**
         * {@value #SESSION_TIMEOUT}: the owned Curator client's session timeout. Default 15s;
         * between 1 ms and {@code Integer.MAX_VALUE} ms.
         */
        public Builder sessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = requireIntMillis(DurationFormat.requirePositive(SESSION_TIMEOUT, sessionTimeout));
            return this;
        }

        /**
         * {@value #OPERATION_TIMEOUT}: the per-attempt bound of an acquisition (see the class
         * description). Default 1s; at least 1 ms and below the session timeout (checked by {@link
         * #build()}).
         */
        public Builder operationTimeout(Duration operationTimeout) {
            this.operationTimeout = DurationFormat.requirePositive(OPERATION_TIMEOUT, operationTimeout);
            return this;
        }

        /**
         * {@value #TOKEN_RETENTION}: how long the token node of an unused lock name is kept. Default
         * 1 day; at least {@link #MIN_TOKEN_RETENTION}.
         */
        public Builder tokenRetention(Duration tokenRetention) {
            this.tokenRetention = requireRetention(DurationFormat.requirePositive(TOKEN_RETENTION, tokenRetention));
            return this;
        }

        /**
         * @throws IllegalArgumentException if neither or both of a connect string and a Curator
         *     client were given, the Curator client is not started, or the operation timeout is not
         *     below the session timeout
         */
        public ZooKeeperSettings build() {
            requireConsistent();
            if ((connect == null) == (curator == null)) {
                throw new IllegalArgumentException(
                        connect == null
                                ? CONNECT + " is required for backend " + ZooKeeperLocks.BACKEND
                                        + ", e.g. zk1:2181,zk2:2181,zk3:2181 (or hand in a started CuratorFramework)"
                                : "give either " + CONNECT + " or a CuratorFramework, not both");
            }
            if (curator != null && curator.getState() != CuratorFrameworkState.STARTED) {
                throw new IllegalArgumentException("curator must be started before creating a lock client on it,"
                        + " but it is " + curator.getState());
            }
            return new ZooKeeperSettings(this);
        }

        void requireConsistent() {
            requireBelowSession(operationTimeout, sessionTimeout);
        }
    }
}
