package dev.fencedlock.zookeeper;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.imps.ProtectedUtils;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lock-node creates whose fate is unknown: the connection dropped before their answer, so the
 * server may have applied them. Such a node belongs to this client's session and, if the session
 * survived, would hold its lock for nobody until the session ends. Each is remembered by its lock
 * path and protected id (the UUID in the node's name, {@link ProtectedUtils}) and searched for
 * once the client is connected again ({@link #sweep}, on every reconnection and before every
 * acquisition): one listing of the lock's children, then a delete of every node carrying the id.
 * An entry is dropped once a listing succeeded (the node was deleted or was never there) or the
 * lock's container is gone (so is the node).
 *
 * <p>Bounded: at most {@value #MAX_ENTRIES} entries; beyond that, a new one is dropped with a
 * warning (its node, if any, lives until its session ends).
 *
 * <p>Thread-safety: thread-safe; searches never block (answers arrive on ZooKeeper's event
 * thread).
 */
final class AbandonedCreates {
    private static final Logger log = LoggerFactory.getLogger(AbandonedCreates.class);

    static final int MAX_ENTRIES = 10_000;

    private final LockNodes nodes;
    private final Set<Entry> entries = ConcurrentHashMap.newKeySet();

    AbandonedCreates(LockNodes nodes) {
        this.nodes = nodes;
    }

    /** Remembers a create under {@code lockPath} (relative to the namespace) whose fate is unknown, and searches for it if connected. */
    void add(String lockPath, String protectedId) {
        if (entries.size() >= MAX_ENTRIES) {
            log.warn(
                    "More than {} lock-node creates of unknown fate; the one under {} is left to its session's end",
                    MAX_ENTRIES,
                    lockPath);
            return;
        }
        entries.add(new Entry(lockPath, protectedId));
        sweep();
    }

    /** Searches for every remembered create, if the client is connected; returns at once. */
    void sweep() {
        if (entries.isEmpty()) {
            return;
        }
        ZooKeeper zooKeeper;
        try {
            zooKeeper = nodes.connectedHandle();
        } catch (KeeperException e) {
            return; // the next reconnection sweeps
        }
        for (Entry entry : entries) {
            ZkRequests.getChildren(zooKeeper, nodes.inNamespace(entry.lockPath()))
                    .whenComplete((children, failure) -> {
                        if (failure instanceof KeeperException.NoNodeException) {
                            entries.remove(entry);
                        } else if (failure == null) {
                            deleteOwn(entry, children);
                            entries.remove(entry);
                        }
                    });
        }
    }

    private void deleteOwn(Entry entry, List<String> children) {
        for (String child : children) {
            if (ProtectedUtils.extractProtectedId(child).equals(Optional.of(entry.protectedId()))) {
                log.debug("Deleting lock node {} of a create whose answer was lost", child);
                nodes.delete(ZKPaths.makePath(entry.lockPath(), child), 0);
            }
        }
    }

    int size() {
        return entries.size();
    }

    private record Entry(String lockPath, String protectedId) {}
}
