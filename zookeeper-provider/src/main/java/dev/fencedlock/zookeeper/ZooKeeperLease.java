package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.AbstractLease;
import dev.fencedlock.spi.LeaseRequest;
import java.time.Duration;
import java.util.Optional;
import org.apache.curator.framework.state.ConnectionState;

/**
 * One grant of a ZooKeeper lock: the ephemeral lock node {@link #nodePath()}, owned by session
 * {@link #sessionId()}, whose creating transaction id is the fencing token.
 *
 * <p>ZooKeeper lock nodes have no time to live: the node lasts as long as the session, so the
 * lease time is a limit this client keeps. A fixed lease that runs out is marked lost by the base
 * class, which then calls {@link #doRelease()} to delete the node.
 *
 * <p>Thread-safety: as {@link AbstractLease}.
 */
final class ZooKeeperLease extends AbstractLease {
    private final ZooKeeperLockProvider provider;
    private final String nodePath;
    private final long sessionId;

    ZooKeeperLease(
            ZooKeeperFencedLock lock,
            LeaseRequest request,
            String nodePath,
            long czxid,
            long sessionId,
            long grantedAtNanos) {
        super(
                lock.name(),
                czxid,
                request.leaseTime(),
                request.autoRenew(),
                grantedAtNanos + request.leaseTime().toNanos(),
                lock.provider().runtime());
        this.provider = lock.provider();
        this.nodePath = nodePath;
        this.sessionId = sessionId;
    }

    /** Full path of the lock node, relative to the Curator namespace. */
    String nodePath() {
        return nodePath;
    }

    long sessionId() {
        return sessionId;
    }

    void connectionInterrupted(ConnectionState state) {
        markLost(
                "the ZooKeeper connection was " + state + ", so the session that owns lock node " + nodePath
                        + " may be gone",
                null);
    }

    /**
     * Checks with the server that the lock node still exists and is still owned by this lease's
     * session, rather than trusting the connection state alone: one read every third of the lease
     * time is cheap, and it also catches a node deleted by an operator or a session that the
     * server expired before this client noticed. Validity is the full requested lease time: the
     * node has no expiry of its own, and any connection interruption revokes the lease at once.
     */
    @Override
    protected Optional<Duration> doExtend(Duration leaseTime) {
        return provider.isStillOwned(lockName(), nodePath, sessionId, token())
                ? Optional.of(leaseTime)
                : Optional.empty();
    }

    /**
     * Deletes this lease's own lock node, never another. Deletion is guaranteed: if it cannot reach
     * the server now, Curator keeps retrying in the background, so a failed release never leaves a
     * node that would block this client's own later acquisitions.
     */
    @Override
    protected void doRelease() {
        provider.watch().untrack(this);
        provider.nodes().delete(nodePath);
    }
}
