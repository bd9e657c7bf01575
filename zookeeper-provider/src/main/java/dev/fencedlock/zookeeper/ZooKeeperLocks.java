package dev.fencedlock.zookeeper;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.LockNames;
import dev.fencedlock.spi.LockClients;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;

/**
 * Clients of the {@code zookeeper} backend built from typed settings, with the same entry points
 * as every backend ({@code RedlockLocks}, {@code JdbcLocks}):
 *
 * <ul>
 *   <li>{@link #create(ZooKeeperSettings)}: typed settings, every common setting at its default;
 *   <li>{@link #create(LockConfig, ZooKeeperSettings)}: {@code common} supplies the settings every
 *       backend shares (lease time, hold-time cap, fallback); its {@code fencedlock.backend} must
 *       be {@code zookeeper}, and its {@code fencedlock.zookeeper.*} keys are not read;
 *   <li>{@link #create(LockConfig, ZooKeeperSettings, LockEventListener)}: as above, reporting to a
 *       listener;
 *   <li>{@link #create(LockConfig, CuratorFramework)}: on the application's own Curator client,
 *       the other settings read from {@code common}'s {@code fencedlock.zookeeper.*} keys.
 * </ul>
 *
 * <pre>{@code
 * CuratorFramework curator = ...; // started, owned by the application
 * try (LockClient client = ZooKeeperLocks.create(
 *         LockConfig.builder().backend("zookeeper").build(), curator)) {
 *     try (Lease lease = client.lock("inventory:sku-42").acquire(Duration.ofSeconds(5))) {
 *         ...
 *     }
 * }   // releases the client's leases; leaves curator open
 * }</pre>
 *
 * <p>On the application's Curator client ({@link ZooKeeperSettings.Builder#curator}), the connect
 * string, session timeout and retry policy are the application's; {@code
 * fencedlock.zookeeper.connect} and {@code fencedlock.zookeeper.session-timeout} are not used.
 * Paths are relative to the Curator client's namespace, if it has one, and new nodes get the ACLs
 * the Curator client gives them. The retry policy plays no part in acquisitions, lease checks or
 * releases: an acquisition ends within its wait plus {@code fencedlock.zookeeper.operation-timeout}
 * (default 1 s), also while the connection is down. Otherwise the backend builds, owns and closes
 * its Curator client ({@link ZooKeeperProviderFactory}).
 *
 * <p>Configuration by keys alone ({@code fencedlock.backend=zookeeper}, {@link LockClient#create},
 * {@link LockClient#fromEnvironment}) reaches the same backend with the same checks.
 */
public final class ZooKeeperLocks {
    /** The value of {@code fencedlock.backend} that selects this backend. */
    public static final String BACKEND = "zookeeper";

    /** The child of the base path under which token nodes live; never an encoded lock name. */
    static final String TOKENS_NODE = "%tokens";

    private ZooKeeperLocks() {}

    /**
     * The znode under which the lock {@code lockName} keeps its contenders' nodes, for operators and
     * tools that inspect or repair locks: {@code basePath} plus the lock name encoded as one znode
     * name. The node with the lowest sequence suffix among its children holds the lock.
     *
     * @throws IllegalArgumentException if the lock name is not acceptable (see {@link
     *     dev.fencedlock.LockNames})
     */
    public static String lockPath(String basePath, String lockName) {
        return ZKPaths.makePath(basePath, ZNodeNames.encode(LockNames.requireValid(lockName)));
    }

    /**
     * The persistent znode that records the last fencing token issued for {@code lockName}:
     * {@code basePath/%tokens/} plus the encoded lock name (no encoded name starts with {@code
     * %t}, so it never collides with a lock). Its data is the token issued before the last one,
     * then a space and the node's {@code czxid} as its writer read it; the last token is {@code
     * TokenOrder.next(data, mtime)}. A node whose last token is older than {@code
     * fencedlock.zookeeper.token-retention} (default 1 day) is deleted, like Redlock's counters
     * that expire when unused: the next token of the name then rests on the clock, still above the
     * last one ({@link dev.fencedlock.spi.TokenOrder}'s time floor; the argument and its clock
     * assumption are in the docs' reliability page).
     *
     * @throws IllegalArgumentException as {@link #lockPath}
     */
    public static String tokenPath(String basePath, String lockName) {
        return ZKPaths.makePath(basePath, TOKENS_NODE, ZNodeNames.encode(LockNames.requireValid(lockName)));
    }

    /**
     * A client on {@code settings}, every common setting at its default (lease time 30s).
     *
     * @throws IllegalArgumentException if the Curator client of {@code settings} is no longer
     *     started
     */
    public static LockClient create(ZooKeeperSettings settings) {
        return create(LockConfig.builder().backend(BACKEND).build(), settings);
    }

    /**
     * A client on {@code settings}, with {@code common}'s lease time, hold-time cap and fallback.
     *
     * @throws IllegalArgumentException if {@code common} names another backend, or the Curator
     *     client of {@code settings} is no longer started
     */
    public static LockClient create(LockConfig common, ZooKeeperSettings settings) {
        requireUsable(common, settings);
        return LockClients.create(common, runtime -> ZooKeeperProviderFactory.provider(settings, runtime));
    }

    /** As {@link #create(LockConfig, ZooKeeperSettings)}, reporting to {@code listener}. */
    public static LockClient create(LockConfig common, ZooKeeperSettings settings, LockEventListener listener) {
        requireUsable(common, settings);
        Objects.requireNonNull(listener, "listener");
        return LockClients.create(common, listener, runtime -> ZooKeeperProviderFactory.provider(settings, runtime));
    }

    /**
     * A client on the application's Curator client, with {@code common}'s lease time, hold-time cap
     * and {@code fencedlock.zookeeper.*} keys (base path, operation timeout, token retention); its
     * {@code connect} and {@code session-timeout} are not used, the Curator client has its own.
     *
     * @param curator a started client; closing the returned {@link LockClient} does not close it
     * @throws IllegalArgumentException if {@code curator} is not started, {@code common} names
     *     another backend, or a value is rejected by
     *     {@link ZooKeeperSettings.Builder}
     */
    public static LockClient create(LockConfig common, CuratorFramework curator) {
        Objects.requireNonNull(common, "common");
        Objects.requireNonNull(curator, "curator");
        requireThisBackend(common);
        return create(
                common,
                ZooKeeperSettings.builder(common.settings(BACKEND))
                        .curatorInsteadOfConnect(curator)
                        .build());
    }

    private static void requireUsable(LockConfig common, ZooKeeperSettings settings) {
        Objects.requireNonNull(common, "common");
        Objects.requireNonNull(settings, "settings");
        requireThisBackend(common);
        settings.curator()
                .filter(curator -> curator.getState() != CuratorFrameworkState.STARTED)
                .ifPresent(curator -> {
                    throw new IllegalArgumentException("curator must be started before creating a lock client on"
                            + " it, but it is " + curator.getState());
                });
    }

    private static void requireThisBackend(LockConfig common) {
        if (!BACKEND.equals(common.backend())) {
            throw new IllegalArgumentException(LockConfig.BACKEND + " must be '" + BACKEND
                    + "' for a client of ZooKeeperLocks, got '" + common.backend() + "'");
        }
    }
}
