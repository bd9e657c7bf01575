package dev.fencedlock.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.ACLBackgroundPathAndBytesable;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;

/**
 * Curator's standard mutex driver, except that the create call also returns the new lock node's
 * {@link Stat}. The stat gives the fencing token (the node's {@code czxid}) and the session that
 * owns the node without a second round trip.
 *
 * <p>The node is created exactly as {@link StandardLockInternalsDriver} creates it (protected,
 * ephemeral-sequential, container parents), so that Curator's protection against a create whose
 * reply was lost, and its clean-up of nodes left by an interrupted create, still apply. When
 * protection recovers a node from an earlier attempt, ZooKeeper never answered that create, so no
 * stat is known; {@link #createdStat()} is then null and the caller reads it separately.
 *
 * <p>Not thread-safe: one instance serves one acquisition, confined to the acquiring thread.
 */
final class LockNodeDriver extends StandardLockInternalsDriver {
    private String createdPath;
    private Stat createdStat;

    @Override
    public String createsTheLock(CuratorFramework client, String path, byte[] lockNodeBytes) throws Exception {
        Stat stat = new Stat();
        ACLBackgroundPathAndBytesable<String> create = client.create()
                .storingStatIn(stat)
                .creatingParentContainersIfNeeded()
                .withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL);
        String created = lockNodeBytes == null ? create.forPath(path) : create.forPath(path, lockNodeBytes);
        createdPath = created;
        createdStat = stat.getCzxid() == 0 ? null : stat;
        return created;
    }

    /** Path of the latest lock node this driver created; null before the first create. */
    String createdPath() {
        return createdPath;
    }

    /** Stat of the latest lock node as the create reported it; null if the reply was not seen. */
    Stat createdStat() {
        return createdStat;
    }
}
