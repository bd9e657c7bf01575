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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.CuratorConnectionLossException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.PathUtils;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code zookeeper} backend's provider: one {@link CuratorFramework} (owned and closed here,
 * or borrowed from the application and left open), the {@link ConnectionWatch} that revokes
 * leases when the connection is interrupted, and the node operations the locks and leases share.
 *
 * <p>Operations that must not wait for a connection (lease checks, release) use the raw ZooKeeper
 * handle or Curator's background queue, never Curator's foreground retry loop, whose waits depend
 * on a retry policy that a borrowed client may set to retry forever.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ZooKeeperLockProvider implements LockProvider {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockProvider.class);

    private final CuratorFramework curator;
    private final boolean ownsCurator;
    private final String basePath;
    private final LeaseRuntime runtime;
    private final Duration releaseWait;
    private final ConnectionWatch watch = new ConnectionWatch();
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
        this.releaseWait = Duration.ofMillis(curator.getZookeeperClient().getConnectionTimeoutMs());
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
        return new ZooKeeperFencedLock(name, ZKPaths.makePath(basePath, ZNodeNames.encode(name)), this);
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
     * Returns once the client is connected; waits for the connection until the request's deadline.
     *
     * @throws LockUnavailableException if the deadline passes without a connection
     */
    void awaitConnected(LeaseRequest request) throws InterruptedException {
        requireStarted();
        if (isConnected()) {
            return;
        }
        long left = request.remainingWaitNanos(runtime.clock().nanoTime());
        if (left > 0) {
            int millis = (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left) + 1);
            curator.blockUntilConnected(millis, TimeUnit.MILLISECONDS);
        }
        if (!isConnected()) {
            throw unavailable(request.lockName(), request.startNanos(), new CuratorConnectionLossException());
        }
    }

    boolean isConnected() {
        return curator.getZookeeperClient().isConnected();
    }

    /** The id of the client's current session; 0 if there is none right now. */
    long currentSessionId() {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    /**
     * Reads a lock node's stat with one request on the raw handle, failing at once rather than
     * waiting for a connection.
     *
     * @return the stat, or null if the node does not exist
     */
    Stat lockNodeStat(String nodePath) throws KeeperException, InterruptedException {
        ZooKeeper zooKeeper = connectedHandle();
        return zooKeeper.exists(ZKPaths.fixForNamespace(curator.getNamespace(), nodePath), false);
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
            if (currentSessionId() != sessionId) {
                return false;
            }
            Stat stat = lockNodeStat(nodePath);
            return stat != null && stat.getEphemeralOwner() == sessionId && stat.getCzxid() == czxid;
        } catch (KeeperException e) {
            if (isConnectionProblem(e)) {
                return false;
            }
            throw unavailable(lockName, start, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(lockName, start, e);
        }
    }

    private ZooKeeper connectedHandle() throws KeeperException {
        ZooKeeper zooKeeper;
        try {
            zooKeeper = curator.getZookeeperClient().getZooKeeper();
        } catch (KeeperException e) {
            throw e;
        } catch (Exception e) {
            throw (KeeperException) new KeeperException.ConnectionLossException().initCause(e);
        }
        if (zooKeeper.getState() != ZooKeeper.States.CONNECTED) {
            throw new KeeperException.ConnectionLossException();
        }
        return zooKeeper;
    }

    /**
     * Deletes a lock node with Curator's guaranteed delete: if the server cannot be reached, the
     * deletion is retried in the background until it succeeds or the session ends (which deletes
     * the node too). So a release that fails never strands a node that would block this client's
     * later acquisitions of the same lock (the CURATOR-678 class of bugs). While connected, waits
     * up to the connection timeout for the deletion, so that the lock is free when {@code close()}
     * returns; while disconnected, does not wait at all.
     */
    void deleteLockNode(String nodePath) {
        boolean connected = isConnected();
        CountDownLatch done = new CountDownLatch(1);
        try {
            curator.delete()
                    .quietly()
                    .guaranteed()
                    .inBackground((client, event) -> done.countDown())
                    .forPath(nodePath);
        } catch (Exception e) {
            throw new IllegalStateException("could not queue the deletion of lock node " + nodePath, e);
        }
        if (!connected) {
            return;
        }
        try {
            if (!done.await(releaseWait.toNanos(), TimeUnit.NANOSECONDS)) {
                log.debug(
                        "Deletion of lock node {} not confirmed within {} ms; it goes on in the background",
                        nodePath,
                        releaseWait.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Throws away a grant that must not be handed out, deleting its node. */
    void discardGrant(String lockName, String nodePath, String reason) {
        discardedGrants.incrementAndGet();
        log.info("Discarded a grant of lock '{}' (node {}) and trying again: {}", lockName, nodePath, reason);
        deleteLockNode(nodePath);
    }

    LockUnavailableException unavailable(String lockName, long startNanos, Throwable cause) {
        Duration elapsed = Duration.ofNanos(runtime.clock().nanoTime() - startNanos);
        String ensemble = "zookeeper " + curator.getZookeeperClient().getCurrentConnectionString();
        return new LockUnavailableException(lockName, elapsed, 1, 1, List.of(new NodeFailure(ensemble, cause)));
    }

    /** Whether {@code e} means the connection or session failed, rather than the request. */
    static boolean isConnectionProblem(Throwable e) {
        if (e instanceof KeeperException keeper) {
            KeeperException.Code code = keeper.code();
            return code == KeeperException.Code.CONNECTIONLOSS
                    || code == KeeperException.Code.SESSIONEXPIRED
                    || code == KeeperException.Code.SESSIONMOVED
                    || code == KeeperException.Code.OPERATIONTIMEOUT
                    || code == KeeperException.Code.NOTREADONLY;
        }
        return false;
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
