package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.MonotonicClock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.ACLBackgroundPathAndBytesable;
import org.apache.curator.framework.recipes.locks.StandardLockInternalsDriver;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;

/**
 * Curator's standard mutex driver, except that the create call also returns the new lock node's
 * {@link Stat}. The stat gives the fencing token (the node's {@code czxid}) and the session that
 * owns the node without a second round trip, and the time the create was sent is the first point
 * from which the lease's {@linkplain SessionBound session bound} counts.
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
    private final MonotonicClock clock;
    private String createdPath;
    private Stat createdStat;
    private long createSentNanos;

    LockNodeDriver(MonotonicClock clock) {
        this.clock = clock;
    }

    @Override
    public String createsTheLock(CuratorFramework client, String path, byte[] lockNodeBytes) throws Exception {
        Stat stat = new Stat();
        ACLBackgroundPathAndBytesable<String> create = client.create()
                .storingStatIn(stat)
                .creatingParentContainersIfNeeded()
                .withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL);
        long sentNanos = clock.nanoTime();
        String created = lockNodeBytes == null ? create.forPath(path) : create.forPath(path, lockNodeBytes);
        createdPath = created;
        createSentNanos = sentNanos;
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

    /**
     * When the latest create was handed to Curator, on the runtime's clock: no later than the send
     * of the request (or retry) that the server answered, so the session bound may count from it.
     */
    long createSentNanos() {
        return createSentNanos;
    }
}
