package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.zookeeper.LockNodes.NodeRead;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

/**
 * The {@code sync} requests that ownership reads follow, shared among the reads sent within
 * {@value #SHARING_MILLIS} ms of one another: at 20,000 checks a second, one sync every few
 * milliseconds instead of one per check. A sync syncs the whole server the client is connected to
 * with the leader, whatever its path, so one serves every read queued behind it on the session.
 *
 * <p>Thread-safe.
 */
final class SharedSyncs {
    /** How close together reads must be sent to share one sync. */
    static final long SHARING_MILLIS = 5;

    private static final long SHARING_NANOS = TimeUnit.MILLISECONDS.toNanos(SHARING_MILLIS);

    private final MonotonicClock clock;
    private final AtomicReference<SentSync> recent = new AtomicReference<>();

    SharedSyncs(MonotonicClock clock) {
        this.clock = clock;
    }

    /**
     * A sync on {@code zooKeeper} sent at most {@value #SHARING_MILLIS} ms ago and not failed, or a
     * new one. A request sent after this method returns is queued behind the sync on the session,
     * whichever thread sent the sync: the sync is handed to the client before it is published here.
     */
    SentSync syncFor(ZooKeeper zooKeeper, String path) {
        long now = clock.nanoTime();
        SentSync last = recent.get();
        if (last != null
                && last.handle() == zooKeeper
                && now - last.sentNanos() <= SHARING_NANOS
                && !last.done().isCompletedExceptionally()) {
            return last;
        }
        SentSync fresh = new SentSync(zooKeeper, now, new CompletableFuture<>());
        zooKeeper.sync(path, (rc, p, ctx) -> settle(fresh.done(), rc, p), null);
        recent.set(fresh);
        return fresh;
    }

    /**
     * A {@code sync} followed, on the same session, by the {@code exists} read of {@code path} (in
     * the namespace already). The server answers a session's requests in order, so the read is
     * answered only once the sync has gone through the leader: an answer shows that the server the
     * client is connected to was in touch with the leader after the sync was sent, and so had passed
     * this session's earlier requests on to it (see {@link SessionBound}). A follower cut off from
     * the leader, which would go on answering plain reads for {@code tickTime x syncLimit}, does not
     * answer at all.
     *
     * <p>The read counts from when its sync was sent ({@link NodeRead#sentNanos}), at most {@value
     * #SHARING_MILLIS} ms before the read itself, so sharing a sync never lengthens a validity.
     *
     * @return completes with the stat (null if the node does not exist) and the sync's send time;
     *     exceptionally with {@link KeeperException} for an error of the server or the connection
     */
    CompletableFuture<NodeRead> existsAfterSync(ZooKeeper zooKeeper, String path) {
        CompletableFuture<NodeRead> answer = new CompletableFuture<>();
        SentSync sync = syncFor(zooKeeper, path);
        zooKeeper.exists(
                path,
                false,
                // the sync's reply came first: the replies of one session arrive in order
                (rc, p, ctx, stat) -> sync.done().whenComplete((ignored, syncFailure) -> {
                    KeeperException.Code code = KeeperException.Code.get(rc);
                    if (syncFailure != null) {
                        answer.completeExceptionally(syncFailure);
                    } else if (code == KeeperException.Code.OK || code == KeeperException.Code.NONODE) {
                        answer.complete(new NodeRead(stat, sync.sentNanos()));
                    } else {
                        answer.completeExceptionally(KeeperException.create(code, p));
                    }
                }),
                null);
        return answer;
    }

    /** Completes {@code synced} from a reply to a sync. */
    private static void settle(CompletableFuture<Void> synced, int rc, String path) {
        KeeperException.Code code = KeeperException.Code.get(rc);
        if (code == KeeperException.Code.OK) {
            synced.complete(null);
        } else {
            synced.completeExceptionally(KeeperException.create(code, path));
        }
    }

    /**
     * A sync sent on {@code handle} at {@code sentNanos}; {@code done} completes with its reply,
     * which the session's later requests follow.
     */
    record SentSync(ZooKeeper handle, long sentNanos, CompletableFuture<Void> done) {}
}
