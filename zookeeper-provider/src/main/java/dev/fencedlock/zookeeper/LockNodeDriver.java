package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.MonotonicClock;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.imps.ProtectedUtils;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Curator's standard mutex driver, except that the lock node is created in one transaction with
 * the record of its fencing token ({@link LockTokens}): the contender's token is issued when it
 * joins the line, and a grant costs the server the same two writes as Curator's own mutex (create
 * and delete). The transaction's answer also gives the node's {@code czxid} (the token node's
 * {@code mzxid}, written in the same transaction) and the session that owns the node, and the time
 * the transaction was sent is the first point from which the lease's {@linkplain SessionBound
 * session bound} counts.
 *
 * <p>The node is named and placed as {@link StandardLockInternalsDriver} places it: a protected
 * ephemeral-sequential node ({@code _c_<uuid>-lock-<sequence>}), its container parents created when
 * missing. Curator's transactions retry a request whose reply was lost without knowing whether it
 * was applied, so where a transaction may have been applied unseen (it then fails on the token
 * node's version, which its own first try raised), the protected name finds the node it created
 * and deletes it before trying again; when the create is given up (interrupted, retries spent),
 * that search and delete go on in the background, as Curator's protection does. So no lock node is
 * left behind that would block this client's later acquisitions while its session lives.
 *
 * <p>Not thread-safe: one instance serves one acquisition, confined to the acquiring thread.
 */
final class LockNodeDriver extends StandardLockInternalsDriver {
    private static final Logger log = LoggerFactory.getLogger(LockNodeDriver.class);

    private final MonotonicClock clock;
    private final LockTokens tokens;
    private final String tokenPath;
    private Created created;

    LockNodeDriver(MonotonicClock clock, LockTokens tokens, String tokenPath) {
        this.clock = clock;
        this.tokens = tokens;
        this.tokenPath = tokenPath;
    }

    @Override
    public String createsTheLock(CuratorFramework client, String path, byte[] lockNodeBytes) throws Exception {
        String protectedId = UUID.randomUUID().toString();
        String nodePath = ProtectedUtils.toProtectedZNodePath(path, protectedId);
        String parent = ZKPaths.getPathAndNode(path).getPath();
        boolean sent = false;
        try {
            while (true) {
                LockTokens.Record record = tokens.lastKnown(tokenPath);
                if (!record.exists()) {
                    tokens.createTokenNode(tokenPath);
                    continue;
                }
                long sessionBefore = sessionId(client);
                long sentNanos = clock.nanoTime();
                List<CuratorTransactionResult> results;
                try {
                    sent = true;
                    results = client.transaction()
                            .forOperations(
                                    lockNodeBytes == null
                                            ? client.transactionOp()
                                                    .create()
                                                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                                                    .forPath(nodePath)
                                            : client.transactionOp()
                                                    .create()
                                                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                                                    .forPath(nodePath, lockNodeBytes),
                                    tokens.recordOp(tokenPath, record));
                } catch (KeeperException e) {
                    if (failedWith(e, 0, KeeperException.Code.NONODE)) {
                        client.createContainers(parent);
                        continue;
                    }
                    if (failedWith(e, 1, KeeperException.Code.BADVERSION)
                            || failedWith(e, 1, KeeperException.Code.NONODE)) {
                        tokens.forget(tokenPath);
                        deleteOwnNodes(client, parent, protectedId);
                        continue;
                    }
                    throw e;
                }
                sent = false;
                Stat written = results.get(1).getResultStat();
                LockTokens.Record after = tokens.written(tokenPath, record, written);
                String createdPath = results.get(0).getResultPath();
                long owner = sessionBefore == sessionId(client) ? sessionBefore : ownerOf(client, createdPath);
                created = new Created(createdPath, written.getMzxid(), owner, after.lastIssued(), sentNanos);
                return createdPath;
            }
        } catch (Exception e) {
            if (sent) {
                deleteOwnNodesInBackground(client, parent, protectedId);
            }
            throw e;
        }
    }

    /** The lock node of the latest successful create, with its token; null before one. */
    Created created() {
        return created;
    }

    private static boolean failedWith(KeeperException e, int op, KeeperException.Code code) {
        List<OpResult> results = e.getResults();
        return results != null
                && results.size() > op
                && results.get(op) instanceof OpResult.ErrorResult error
                && error.getErr() == code.intValue();
    }

    private static long sessionId(CuratorFramework client) throws Exception {
        return client.getZookeeperClient().getZooKeeper().getSessionId();
    }

    /** The session that owns a node created while the client's session changed; 0 if it is gone. */
    private static long ownerOf(CuratorFramework client, String nodePath) throws Exception {
        Stat stat = client.checkExists().forPath(nodePath);
        return stat == null ? 0 : stat.getEphemeralOwner();
    }

    /**
     * Deletes the lock nodes of this create that a transaction applied without this client seeing
     * its reply. Such a node is this client's own and would hold the line for its session.
     */
    private static void deleteOwnNodes(CuratorFramework client, String parent, String protectedId) throws Exception {
        List<String> children;
        try {
            children = client.getChildren().forPath(parent);
        } catch (KeeperException.NoNodeException e) {
            return;
        }
        for (String child : children) {
            if (isOwn(child, protectedId)) {
                log.debug("Deleting lock node {} of a transaction whose reply was lost", child);
                try {
                    client.delete().guaranteed().forPath(ZKPaths.makePath(parent, child));
                } catch (KeeperException.NoNodeException e) {
                    // gone already
                }
            }
        }
    }

    private static void deleteOwnNodesInBackground(CuratorFramework client, String parent, String protectedId) {
        try {
            client.getChildren()
                    .inBackground((c, event) -> {
                        List<String> children = event.getChildren();
                        if (children == null) {
                            return;
                        }
                        for (String child : children) {
                            if (isOwn(child, protectedId)) {
                                c.delete().guaranteed().inBackground().forPath(ZKPaths.makePath(parent, child));
                            }
                        }
                    })
                    .forPath(parent);
        } catch (Exception e) {
            log.debug("Could not queue the search for lock nodes of an abandoned create under {}: {}", parent, e);
        }
    }

    private static boolean isOwn(String child, String protectedId) {
        return ProtectedUtils.extractProtectedId(child).equals(Optional.of(protectedId));
    }

    /**
     * A lock node this driver created: its path (relative to the Curator namespace), {@code czxid},
     * owning session (0 if the node was already gone when the owner had to be read), the token
     * issued with it, and when its transaction was handed to Curator, on the runtime's clock (no
     * later than the send of the request the server answered).
     */
    record Created(String path, long czxid, long sessionId, long token, long sentNanos) {}
}
