package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.MonotonicClock;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.imps.ProtectedUtils;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One contender's place in a lock's line: ZooKeeper's lock recipe, as Curator's {@code
 * InterProcessMutex} runs it, sent as single requests on one raw ZooKeeper handle so that no
 * request waits longer than the acquisition allows ({@link AcquisitionBound}): no retry policy,
 * no wait for a connection inside a request, and a request whose answer does not come in time is
 * given up without blocking anything.
 *
 * <ol>
 *   <li>Join: create a protected ephemeral-sequential node ({@code _c_<uuid>-lock-<sequence>},
 *       Curator's names) in one transaction with the record of its fencing token ({@link
 *       LockTokens}); missing container parents and the token node are created first.
 *   <li>List the lock's children; the node with the lowest sequence holds the lock. If it is this
 *       one, the lock is granted. Otherwise leave a watch on the node just before this one and wait
 *       for it to go, until the caller's deadline; then list again.
 *   <li>If the wait ends, or anything fails, delete this contender's node (never waiting longer than
 *       a request may) and report it.
 * </ol>
 *
 * <p><b>Abandoned creates.</b> A create whose answer did not come in time may still be applied by
 * the server later. Its node would be this client's own, first in line perhaps, and would hold the
 * lock for nobody until the session ends. So a given-up create is not forgotten: when its answer
 * arrives, a created node is deleted at once; if the connection dropped before the answer (so
 * whether it was applied is unknown), the protected id is handed to {@link AbandonedCreates}, which
 * searches the lock's children for it once the client is connected again and deletes what it
 * finds, as Curator's protection mode does for its own retries. A lost session takes the node with
 * it anyway.
 *
 * <p>Not thread-safe: one instance serves one attempt, confined to the acquiring thread.
 */
final class LockLine {
    private static final Logger log = LoggerFactory.getLogger(LockLine.class);
    private static final String LOCK_NAME = "lock-";

    private final ZooKeeperLockProvider provider;
    private final ZooKeeper zooKeeper;
    private final String lockName;
    private final String lockPath;
    private final String tokenPath;
    private final AcquisitionBound bound;
    private final MonotonicClock clock;

    LockLine(
            ZooKeeperLockProvider provider,
            ZooKeeper zooKeeper,
            String lockName,
            String lockPath,
            String tokenPath,
            AcquisitionBound bound) {
        this.provider = provider;
        this.zooKeeper = zooKeeper;
        this.lockName = lockName;
        this.lockPath = lockPath;
        this.tokenPath = tokenPath;
        this.bound = bound;
        this.clock = provider.runtime().clock();
    }

    /**
     * Joins the line and waits for the lock until the caller's deadline.
     *
     * @return the granted node, or null if another contender held the lock until the deadline
     *     (this contender's node is then deleted)
     * @throws KeeperException a server or connection error (this contender's node deleted)
     * @throws TimeoutException a request had no answer within what the bound allows
     * @throws InterruptedException the thread was interrupted (this contender's node deleted)
     */
    Created acquire() throws KeeperException, TimeoutException, InterruptedException {
        Created created = join();
        boolean granted;
        try {
            granted = awaitTurn(created.path());
        } catch (KeeperException | TimeoutException | InterruptedException | RuntimeException e) {
            // Queued on the session before any later request of this client, so never overtaken.
            provider.nodes().delete(created.path(), 0);
            throw e;
        }
        if (!granted) {
            provider.nodes().delete(created.path(), bound.requestWaitNanos());
            return null;
        }
        return created;
    }

    /** Fails at once when the handle is not connected, rather than queueing a request until it is. */
    private void requireConnected() throws KeeperException {
        if (zooKeeper.getState() != ZooKeeper.States.CONNECTED) {
            throw new KeeperException.ConnectionLossException();
        }
    }

    private Created join() throws KeeperException, TimeoutException, InterruptedException {
        LockTokens tokens = provider.tokens();
        while (true) {
            String protectedId = UUID.randomUUID().toString();
            String nodePath = ProtectedUtils.toProtectedZNodePath(ZKPaths.makePath(lockPath, LOCK_NAME), protectedId);
            requireConnected();
            LockTokens.Record record = tokens.lastKnown(zooKeeper, tokenPath, bound);
            if (!record.exists()) {
                tokens.createTokenNode(zooKeeper, tokenPath, bound);
                continue;
            }
            List<Op> ops = List.of(
                    ZkRequests.createOp(provider.curator(), nodePath, CreateMode.EPHEMERAL_SEQUENTIAL, new byte[0]),
                    tokens.recordOp(tokenPath, record));
            requireConnected();
            long sentNanos = clock.nanoTime();
            CompletableFuture<ZkRequests.MultiAnswer> sent = ZkRequests.multi(zooKeeper, ops);
            ZkRequests.MultiAnswer answer;
            try {
                answer =
                        ZkRequests.await(sent, bound.requestWaitNanos(), "the create of a lock node under " + lockPath);
            } catch (TimeoutException | InterruptedException e) {
                sent.thenAccept(late -> cleanUpLate(late, protectedId));
                throw e;
            }
            if (answer.ok()) {
                String createdPath = ZKPaths.makePath(
                        lockPath,
                        ZKPaths.getNodeFromPath(
                                ((OpResult.CreateResult) answer.results().get(0)).getPath()));
                Stat stat = ((OpResult.SetDataResult) answer.results().get(1)).getStat();
                LockTokens.Written written = tokens.written(tokenPath, record, stat);
                Created created =
                        new Created(createdPath, stat.getMzxid(), zooKeeper.getSessionId(), written.token(), sentNanos);
                if (!written.trusted()) {
                    provider.discardGrant(
                            lockName,
                            createdPath,
                            "its token was recorded on a token node created after the one this client had read");
                    continue;
                }
                return created;
            }
            if (answer.failedWith(0, KeeperException.Code.NONODE)) {
                ZkRequests.createAncestors(provider.curator(), zooKeeper, nodePath, CreateMode.CONTAINER, bound);
                continue;
            }
            if (answer.failedWith(1, KeeperException.Code.BADVERSION)
                    || answer.failedWith(1, KeeperException.Code.NONODE)) {
                tokens.forget(tokenPath);
                continue;
            }
            if (answer.code() == KeeperException.Code.CONNECTIONLOSS) {
                // The request may have been applied unseen; search for it once connected again.
                provider.abandonedCreates().add(lockPath, protectedId);
            }
            throw KeeperException.create(answer.code(), nodePath);
        }
    }

    /** What to do with the answer to a create that this contender gave up on. */
    private void cleanUpLate(ZkRequests.MultiAnswer late, String protectedId) {
        if (late.ok()) {
            String path = ZKPaths.makePath(
                    lockPath,
                    ZKPaths.getNodeFromPath(
                            ((OpResult.CreateResult) late.results().get(0)).getPath()));
            log.debug("Deleting lock node {} of a create given up before its answer came", path);
            provider.nodes().delete(path, 0);
        } else if (late.code() == KeeperException.Code.CONNECTIONLOSS) {
            provider.abandonedCreates().add(lockPath, protectedId);
        }
    }

    /**
     * Step 2: waits until {@code nodePath} is first in line, or the caller's deadline.
     *
     * @return whether it is first
     */
    private boolean awaitTurn(String nodePath) throws KeeperException, TimeoutException, InterruptedException {
        String ownName = ZKPaths.getNodeFromPath(nodePath);
        String fullLockPath = provider.nodes().inNamespace(lockPath);
        while (true) {
            requireConnected();
            List<String> children = ZkRequests.await(
                    ZkRequests.getChildren(zooKeeper, fullLockPath),
                    bound.requestWaitNanos(),
                    "the listing of " + lockPath);
            List<String> line = children.stream()
                    .sorted(Comparator.comparing(
                            child -> StandardLockInternalsDriver.standardFixForSorting(child, LOCK_NAME)))
                    .toList();
            int index = line.indexOf(ownName);
            if (index < 0) {
                throw new KeeperException.NoNodeException(nodePath + " (this contender's node is gone from the line)");
            }
            if (index == 0) {
                return true;
            }
            if (!bound.waitLeft()) {
                return false;
            }
            CountDownLatch changed = new CountDownLatch(1);
            Stat predecessor = ZkRequests.await(
                    ZkRequests.exists(
                            zooKeeper,
                            ZKPaths.makePath(fullLockPath, line.get(index - 1)),
                            event -> changed.countDown()),
                    bound.requestWaitNanos(),
                    "the watch on the lock node before " + nodePath);
            if (predecessor != null && !changed.await(bound.lineWaitNanos(), TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
    }

    /**
     * A lock node this contender created: its path (relative to the Curator namespace), {@code
     * czxid}, owning session, the token issued with it, and when its transaction was handed over,
     * on the runtime's clock.
     */
    record Created(String path, long czxid, long sessionId, long token, long sentNanos) {}
}
