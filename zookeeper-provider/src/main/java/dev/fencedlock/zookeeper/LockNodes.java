package dev.fencedlock.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and deletes lock nodes with single requests on Curator's current raw ZooKeeper handle.
 *
 * <p>These are the checks and clean-ups that must not wait for a connection: a lease check while
 * disconnected has its answer already (the connection watch revokes the lease), and a release
 * must not block a caller, or a scheduler thread, for as long as a retry policy allows, which for
 * a borrowed client may be forever. So each operation fails at once when there is no connection,
 * and only deletion falls back to Curator's background retries. Paths are relative to the
 * Curator namespace, as Curator's own operations take them.
 *
 * <p>Thread-safety: thread-safe (stateless besides the client).
 */
final class LockNodes {
    private static final Logger log = LoggerFactory.getLogger(LockNodes.class);

    private final CuratorFramework curator;

    LockNodes(CuratorFramework curator) {
        this.curator = curator;
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
     * @return the node's stat, or null if it does not exist
     * @throws KeeperException with code {@code CONNECTIONLOSS} at once if not connected
     */
    Stat stat(String nodePath) throws KeeperException, InterruptedException {
        return connectedHandle().exists(inNamespace(nodePath), false);
    }

    /**
     * Whether the node exists as the node created in transaction {@code czxid}, owned by session
     * {@code sessionId}, and that session is still the client's.
     */
    boolean isOwned(String nodePath, long sessionId, long czxid) throws KeeperException, InterruptedException {
        if (currentSessionId() != sessionId) {
            return false;
        }
        Stat stat = stat(nodePath);
        return stat != null && stat.getEphemeralOwner() == sessionId && stat.getCzxid() == czxid;
    }

    /**
     * Deletes a lock node. The first try is one request on the raw handle, the cheapest way. If it
     * fails (no connection, or the reply is lost), the node is handed to Curator's guaranteed
     * delete, which retries in the background until the deletion succeeds or the session ends
     * (which deletes the node too). So a release that fails never strands a node that would block
     * this client's later acquisitions of the same lock while its session lives on (the
     * CURATOR-678 class of bugs). A node that is already gone is fine.
     *
     * @throws IllegalStateException if the client is closed, so the deletion cannot even be queued
     */
    void delete(String nodePath) {
        try {
            connectedHandle().delete(inNamespace(nodePath), -1);
            return;
        } catch (KeeperException.NoNodeException e) {
            return;
        } catch (KeeperException e) {
            log.debug("Deleting lock node {} failed ({}); retrying in the background", nodePath, e.code());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            curator.delete().quietly().guaranteed().inBackground().forPath(nodePath);
        } catch (Exception e) {
            throw new IllegalStateException("could not queue the deletion of lock node " + nodePath, e);
        }
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

    private String inNamespace(String nodePath) {
        return ZKPaths.fixForNamespace(curator.getNamespace(), nodePath);
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
}
