package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.BackendSettings;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.common.PathUtils;

/**
 * The configuration keys of the {@code zookeeper} backend, and their values read from a {@link
 * dev.fencedlock.LockConfig}. Set them like any key, e.g. {@code
 * LockConfig.builder().backend("zookeeper").set(ZooKeeperSettings.CONNECT, "zk1:2181,zk2:2181")},
 * or as {@code FENCEDLOCK_ZOOKEEPER_CONNECT} in the environment.
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@code fencedlock.zookeeper.connect}</td><td>connect string {@code host:port[,host:port...][/chroot]}</td><td>required (unless the client is built on an application's Curator, see {@link ZooKeeperLocks})</td></tr>
 *   <tr><td>{@code fencedlock.zookeeper.base-path}</td><td>root znode for locks</td><td>{@code /fencedlock}</td></tr>
 *   <tr><td>{@code fencedlock.zookeeper.session-timeout}</td><td>Curator session timeout</td><td>15s</td></tr>
 * </table>
 *
 * <p>Immutable and thread-safe.
 */
public final class ZooKeeperSettings {
    public static final String CONNECT = "fencedlock.zookeeper.connect";
    public static final String BASE_PATH = "fencedlock.zookeeper.base-path";
    public static final String SESSION_TIMEOUT = "fencedlock.zookeeper.session-timeout";

    /** Every key of the backend. */
    public static final Set<String> KEYS = Set.of(CONNECT, BASE_PATH, SESSION_TIMEOUT);

    static final String DEFAULT_BASE_PATH = "/fencedlock";

    private final String connect;
    private final String basePath;
    private final Duration sessionTimeout;

    private ZooKeeperSettings(String connect, String basePath, Duration sessionTimeout) {
        this.connect = connect;
        this.basePath = basePath;
        this.sessionTimeout = sessionTimeout;
    }

    /**
     * Reads and checks the values that were set; absent keys take their defaults.
     *
     * @throws IllegalArgumentException naming the key and the value for a malformed connect string
     *     (including a chroot that is not at its end), a base path that is not a usable znode path,
     *     or a session timeout that is not positive or does not fit in an int of milliseconds
     */
    public static ZooKeeperSettings from(BackendSettings settings) {
        return new ZooKeeperSettings(
                settings.get(CONNECT)
                        .map(ZooKeeperSettings::requireValidConnect)
                        .orElse(null),
                requireValidBasePath(settings.get(BASE_PATH).orElse(DEFAULT_BASE_PATH)),
                settings.positiveDuration(SESSION_TIMEOUT)
                        .map(ZooKeeperSettings::requireIntMillis)
                        .orElse(Duration.ofSeconds(15)));
    }

    private static String requireValidConnect(String connect) {
        if (connect.isEmpty() || connect.chars().anyMatch(Character::isWhitespace)) {
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
        if (!basePath.startsWith("/") || basePath.length() < 2 || basePath.endsWith("/")) {
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

    /** Root znode under which lock nodes are created. Default {@code /fencedlock}. */
    public String basePath() {
        return basePath;
    }

    /** Curator session timeout. Default 15s. */
    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    @Override
    public String toString() {
        return "ZooKeeperSettings{connect=" + connect + ", basePath=" + basePath + ", sessionTimeout=" + sessionTimeout
                + "}";
    }
}
