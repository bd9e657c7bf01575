package dev.fencedlock.zookeeper;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockNames;
import dev.fencedlock.spi.LockClients;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;

/**
 * Creates {@link LockClient}s on a {@link CuratorFramework} that the application already has,
 * instead of one built from {@code fencedlock.zookeeper.connect}:
 *
 * <pre>{@code
 * CuratorFramework curator = ...; // started, owned by the application
 * try (LockClient client = ZooKeeperLocks.newClient(curator)) {
 *     try (Lease lease = client.lock("inventory:sku-42").acquire(Duration.ofSeconds(5))) {
 *         ...
 *     }
 * }   // releases the client's leases; leaves curator open
 * }</pre>
 *
 * <p>The client's connect string, session timeout and retry policy are the application's;
 * {@code fencedlock.zookeeper.connect} and {@code fencedlock.zookeeper.session-timeout} are not
 * used. Paths are relative to the Curator client's namespace, if it has one, and new nodes get
 * the ACLs the Curator client gives them. The retry policy plays no part in acquisitions, lease
 * checks or releases: an acquisition ends within its wait plus {@code
 * fencedlock.zookeeper.operation-timeout} (taken from the configuration given, default 1 s), also
 * while the connection is down.
 */
public final class ZooKeeperLocks {
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

    /** A client with the default configuration (lease time 30s, base path {@code /fencedlock}). */
    public static LockClient newClient(CuratorFramework curator) {
        return newClient(
                curator,
                LockConfig.builder().backend(ZooKeeperProviderFactory.BACKEND).build());
    }

    /**
     * A client with {@code config}'s lease time, hold-time cap and base path.
     *
     * @param curator a started client; closing the returned {@link LockClient} does not close it
     * @throws IllegalArgumentException if {@code curator} is not started, {@code config} names
     *     another backend, or its base path is not a usable znode path
     */
    public static LockClient newClient(CuratorFramework curator, LockConfig config) {
        Objects.requireNonNull(curator, "curator");
        Objects.requireNonNull(config, "config");
        if (curator.getState() != CuratorFrameworkState.STARTED) {
            throw new IllegalArgumentException(
                    "curator must be started before creating a lock client on it, but it is " + curator.getState());
        }
        if (!ZooKeeperProviderFactory.BACKEND.equals(config.backend())) {
            throw new IllegalArgumentException(LockConfig.BACKEND + " must be '" + ZooKeeperProviderFactory.BACKEND
                    + "' for a client on a CuratorFramework, got '" + config.backend() + "'");
        }
        ZooKeeperSettings settings = ZooKeeperSettings.from(config.settings(ZooKeeperProviderFactory.BACKEND));
        return LockClients.create(config, runtime -> new ZooKeeperLockProvider(curator, false, settings, runtime));
    }
}
