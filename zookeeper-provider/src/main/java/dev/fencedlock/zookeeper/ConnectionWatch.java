package dev.fencedlock.zookeeper;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;

/**
 * Turns Curator connection-state changes into lease losses.
 *
 * <p>A lock node is only as good as the session that owns it, and once the connection is
 * interrupted this client can no longer tell whether the session lives: the server may expire it
 * and hand the lock to someone else before the client hears anything. So every interruption
 * counts as a loss, at once:
 *
 * <ul>
 *   <li>{@code SUSPENDED} (connection dropped, session perhaps still alive) and {@code LOST}
 *       (session expired, or presumed so) mark every tracked lease lost;
 *   <li>{@code READ_ONLY} does too: a read-only server cannot keep a write-owned session's node;
 *   <li>{@code RECONNECTED} revives nothing. A lost lease stays lost; new acquisitions work again.
 * </ul>
 *
 * <p>Each interruption also bumps {@link #interruptions()}, so that an acquisition that was in
 * flight when the connection dropped can notice and check its grant (see {@link
 * ZooKeeperFencedLock}).
 *
 * <p>Not final only so that tests can inject an interruption at a chosen point.
 *
 * <p>Thread-safety: thread-safe. Curator calls {@link #stateChanged} on its event thread; leases
 * are tracked from acquiring threads and untracked from any thread.
 */
class ConnectionWatch implements ConnectionStateListener {
    private final Set<ZooKeeperLease> leases = ConcurrentHashMap.newKeySet();
    private final AtomicLong interruptions = new AtomicLong();
    private volatile ConnectionState last;

    /** The last connection state Curator reported to this watch; null before the first report. */
    ConnectionState lastState() {
        return last;
    }

    /** How many connection interruptions this watch has seen; only ever grows. */
    long interruptions() {
        return interruptions.get();
    }

    /**
     * Starts telling {@code lease} about interruptions. Callers that read {@link #interruptions()}
     * after this call and find it unchanged know that any later interruption will reach the lease:
     * the counter is bumped before the tracked leases are visited.
     */
    void track(ZooKeeperLease lease) {
        leases.add(lease);
    }

    void untrack(ZooKeeperLease lease) {
        leases.remove(lease);
    }

    /** Number of leases currently tracked. */
    int tracked() {
        return leases.size();
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState newState) {
        last = newState;
        if (newState == ConnectionState.CONNECTED || newState == ConnectionState.RECONNECTED) {
            return;
        }
        interruptions.incrementAndGet();
        for (ZooKeeperLease lease : leases) {
            if (leases.remove(lease)) {
                lease.connectionInterrupted(newState);
            }
        }
    }
}
