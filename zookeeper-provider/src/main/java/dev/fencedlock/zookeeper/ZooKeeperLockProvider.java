package dev.fencedlock.zookeeper;

import dev.fencedlock.FencedLock;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.NodeFailure;
import dev.fencedlock.spi.LeaseRequest;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.CuratorConnectionLossException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.PathUtils;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code zookeeper} backend's provider: one {@link CuratorFramework} (owned and closed here,
 * or borrowed from the application and left open), the {@link ConnectionWatch} that revokes
 * leases when the connection is interrupted, and and what the locks and leases of one client share.
 *
 * <p>Lease checks and releases go through {@link LockNodes}, which never waits for a connection.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ZooKeeperLockProvider implements LockProvider {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockProvider.class);

    private final CuratorFramework curator;
    private final boolean ownsCurator;
    private final String basePath;
    private final LeaseRuntime runtime;
    private final ConnectionWatch watch = new ConnectionWatch();
    private final LockNodes nodes;
    private final AtomicLong discardedGrants = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param curator a started client
     * @param ownsCurator whether {@link #close()} closes {@code curator}
     * @param basePath a valid znode path (see {@link #requireValidBasePath})
     */
    ZooKeeperLockProvider(CuratorFramework curator, boolean ownsCurator, String basePath, LeaseRuntime runtime) {
        this.curator = Objects.requireNonNull(curator, "curator");
        this.ownsCurator = ownsCurator;
        this.basePath = basePath;
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.nodes = new LockNodes(curator);
        curator.getConnectionStateListenable().addListener(watch);
    }

    /**
     * Checks {@code fencedlock.zookeeper.base-path} against ZooKeeper's path rules, beyond the
     * syntax {@link LockConfig} already checks.
     *
     * @throws IllegalArgumentException naming the key and the value
     */
    static String requireValidBasePath(LockConfig config) {
        String basePath = config.zookeeperBasePath();
        try {
            PathUtils.validatePath(basePath);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    LockConfig.ZOOKEEPER_BASE_PATH + " is not a valid znode path: '" + basePath + "' (" + e.getMessage()
                            + ")",
                    e);
        }
        if (basePath.equals("/zookeeper") || basePath.startsWith("/zookeeper/")) {
            throw new IllegalArgumentException(LockConfig.ZOOKEEPER_BASE_PATH
                    + " must not be under /zookeeper, which the server reserves, got '" + basePath + "'");
        }
        return basePath;
    }

    @Override
    public FencedLock lock(String name) {
        return new ZooKeeperFencedLock(name, ZooKeeperLocks.lockPath(basePath, name), this);
    }

    CuratorFramework curator() {
        return curator;
    }

    LeaseRuntime runtime() {
        return runtime;
    }

    ConnectionWatch watch() {
        return watch;
    }

    LockNodes nodes() {
        return nodes;
    }

    /** How many grants were discarded because they could not be trusted (see ZooKeeperFencedLock). */
    long discardedGrants() {
        return discardedGrants.get();
    }

    void requireStarted() {
        if (curator.getState() != CuratorFrameworkState.STARTED) {
            throw new IllegalStateException("the CuratorFramework of this lock client is " + curator.getState());
        }
    }

    /**
     * Returns once the client is connected. Waits until the request's deadline, but at least for
     * the client's connection timeout, as any Curator operation would: a wait of zero asks for one
     * attempt, and an attempt needs a connection, for example right after the client started.
     *
     * @throws LockUnavailableException if no connection came in that time
     */
    void awaitConnected(LeaseRequest request) throws InterruptedException {
        requireStarted();
        if (isConnected()) {
            return;
        }
        long connectionTimeout =
                TimeUnit.MILLISECONDS.toNanos(curator.getZookeeperClient().getConnectionTimeoutMs());
        long left = Math.max(request.remainingWaitNanos(runtime.clock().nanoTime()), connectionTimeout);
        int millis = (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left) + 1);
        curator.blockUntilConnected(millis, TimeUnit.MILLISECONDS);
        if (!isConnected()) {
            throw unavailable(request.lockName(), request.startNanos(), new CuratorConnectionLossException());
        }
    }

    boolean isConnected() {
        return curator.getZookeeperClient().isConnected();
    }

    /**
     * Whether the lock node still exists, as the node this grant created, owned by the session
     * that created it, which is still the client's session. A connection problem means no: an
     * interrupted connection revokes leases anyway.
     *
     * @throws LockUnavailableException if the server gave another error, or the thread was
     *     interrupted (its flag is restored)
     */
    boolean isStillOwned(String lockName, String nodePath, long sessionId, long czxid) {
        long start = runtime.clock().nanoTime();
        try {
            return nodes.isOwned(nodePath, sessionId, czxid);
        } catch (KeeperException e) {
            if (LockNodes.isConnectionProblem(e)) {
                return false;
            }
            throw unavailable(lockName, start, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(lockName, start, e);
        }
    }

    /** Throws away a grant that must not be handed out, deleting its node. */
    void discardGrant(String lockName, String nodePath, String reason) {
        discardedGrants.incrementAndGet();
        log.info("Discarded a grant of lock '{}' (node {}) and trying again: {}", lockName, nodePath, reason);
        nodes.delete(nodePath);
    }

    LockUnavailableException unavailable(String lockName, long startNanos, Throwable cause) {
        Duration elapsed = Duration.ofNanos(runtime.clock().nanoTime() - startNanos);
        String ensemble = "zookeeper " + curator.getZookeeperClient().getCurrentConnectionString();
        return new LockUnavailableException(lockName, elapsed, 1, 1, List.of(new NodeFailure(ensemble, cause)));
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        curator.getConnectionStateListenable().removeListener(watch);
        if (ownsCurator) {
            curator.close();
        }
    }

    @Override
    public String toString() {
        return "ZooKeeperLockProvider{connect=" + curator.getZookeeperClient().getCurrentConnectionString()
                + ", basePath=" + basePath + ", trackedLeases=" + watch.tracked() + "}";
    }
}
