package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.MonotonicClock;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and deletes lock nodes on Curator's current raw ZooKeeper handle: single requests, and
 * the ownership checks of renewals in batches ({@link BatchedReads}).
 *
 * <p>These are the checks and clean-ups that must not wait for a connection, nor for a slow
 * server: a lease check while disconnected has its answer already (the connection watch revokes
 * the lease), and a check or release starts on the lease scheduler, whose few threads every lease
 * of the client shares, or on a caller's thread. So each operation fails at once when there is no
 * connection; an ownership check never waits at all (its answer completes a future on
 * ZooKeeper's event thread), and the other operations wait for the server's answer only as long
 * as their caller says, at most a fraction of the session timeout ({@link
 * SessionBound#requestTimeoutNanos}), never for the read timeout of the ZooKeeper client (two
 * thirds of it) or for as long as a retry policy allows. Requests are sent with the asynchronous
 * API, so giving up on an answer leaves no thread behind.
 * Only deletion falls back to Curator's background retries. Paths are relative to the Curator
 * namespace, as Curator's own operations take them.
 *
 * <p>Thread-safety: thread-safe.
 */
final class LockNodes {
    private static final Logger log = LoggerFactory.getLogger(LockNodes.class);

    /** The most ownership checks of one client that wait for the server at once. */
    static final int MAX_CHECKS_IN_FLIGHT = 65_536;

    private final CuratorFramework curator;
    private final SharedSyncs syncs;
    private final BatchedReads checks;
    private final Semaphore checksInFlight = new Semaphore(MAX_CHECKS_IN_FLIGHT);

    /**
     * @param scheduler sends batches of ownership checks ({@link BatchedReads}); its tasks must not
     *     block
     */
    LockNodes(CuratorFramework curator, MonotonicClock clock, ScheduledExecutorService scheduler) {
        this.curator = curator;
        this.syncs = new SharedSyncs(clock);
        this.checks = new BatchedReads(scheduler, syncs);
    }

    /** The client's current session as far as this client knows; {@link Session#NONE} if none. */
    Session currentSession() {
        try {
            ZooKeeper zooKeeper = curator.getZookeeperClient().getZooKeeper();
            return new Session(zooKeeper.getSessionId(), zooKeeper.getSessionTimeout());
        } catch (Exception e) {
            return Session.NONE;
        }
    }

    /**
     * Reads a node's stat, after a {@code sync}, waiting at most {@code waitNanos} for the answer.
     *
     * @return the stat (null if the node does not exist) and when the request was handed over
     * @throws KeeperException with code {@code CONNECTIONLOSS} at once if not connected, or the
     *     server's error
     * @throws TimeoutException if no answer came in time
     */
    NodeRead read(String nodePath, long waitNanos) throws KeeperException, InterruptedException, TimeoutException {
        return read(connectedHandle(), nodePath, waitNanos);
    }

    /**
     * Whether the node exists as the node created in transaction {@code czxid}, owned by session
     * {@code sessionId}, and that session is still the client's. Never blocks: the check joins the
     * next batch of checks ({@link BatchedReads}: a shared sync, then one read-only multi for up to
     * {@value BatchedReads#MAX_PER_REQUEST} nodes, sent within {@value BatchedReads#WINDOW_MILLIS}
     * ms), and the answer completes the future on ZooKeeper's event thread.
     *
     * <p>Backlog: at most {@value #MAX_CHECKS_IN_FLIGHT} checks of this client wait for the server
     * at once (each holds its place until the server answers or the connection drops, which fails
     * every request in flight); a check beyond that fails at once with {@link
     * RejectedExecutionException}, which a renewal treats as "cannot tell" and retries while
     * validity remains.
     *
     * @return completes with when the read that found the node owned was handed over, or empty
     *     if not owned; exceptionally with {@link KeeperException} ({@code CONNECTIONLOSS} at once
     *     if not connected), with {@link TimeoutException} if no answer came within {@code
     *     waitNanos}, or with {@link RejectedExecutionException} if the backlog is full
     */
    CompletableFuture<OptionalLong> ownedSince(String nodePath, long sessionId, long czxid, long waitNanos) {
        ZooKeeper zooKeeper;
        try {
            zooKeeper = connectedHandle();
        } catch (KeeperException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (zooKeeper.getSessionId() != sessionId) {
            return CompletableFuture.completedFuture(OptionalLong.empty());
        }
        if (!checksInFlight.tryAcquire()) {
            return CompletableFuture.failedFuture(new RejectedExecutionException(
                    "more than " + MAX_CHECKS_IN_FLIGHT + " ownership checks are waiting for the server"));
        }
        return checks.read(zooKeeper, inNamespace(nodePath), checksInFlight::release)
                .orTimeout(Math.max(0, waitNanos), TimeUnit.NANOSECONDS)
                .thenApply(read -> {
                    Stat stat = read.stat();
                    boolean owned = stat != null && stat.getEphemeralOwner() == sessionId && stat.getCzxid() == czxid;
                    return owned ? OptionalLong.of(read.sentNanos()) : OptionalLong.empty();
                });
    }

    private NodeRead read(ZooKeeper zooKeeper, String nodePath, long waitNanos)
            throws KeeperException, InterruptedException, TimeoutException {
        return ZkRequests.await(
                syncs.existsAfterSync(zooKeeper, inNamespace(nodePath)),
                waitNanos,
                "the ownership read of " + nodePath);
    }

    /**
     * Deletes a lock node. The first try is one request on the raw handle, the cheapest way; this
     * method waits for its answer at most {@code waitNanos}, so that a caller who needs the lock
     * free when it returns (closing a lease) usually has it, and no caller is held for long by a
     * slow server. If the request fails (no connection, a lost reply, the session gone), whenever
     * that becomes known, the node is handed to Curator's guaranteed delete, which retries in the
     * background until the deletion succeeds or the session ends (which deletes the node too). So a
     * release that fails never strands a node that would block this client's later acquisitions
     * of the same lock while its session lives on (the CURATOR-678 class of bugs). A node that is
     * already gone is fine. Requests of one session are served in order, so a later acquisition
     * by this client never overtakes the deletion.
     *
     * @param waitNanos how long to wait for the server's answer; 0 not to wait
     * @throws IllegalStateException if the client is closed, so the deletion cannot even be queued
     */
    void delete(String nodePath, long waitNanos) {
        ZooKeeper zooKeeper;
        try {
            zooKeeper = connectedHandle();
        } catch (KeeperException e) {
            deleteInBackground(nodePath, e.code());
            return;
        }
        CompletableFuture<Void> answer = new CompletableFuture<>();
        zooKeeper.delete(
                inNamespace(nodePath),
                -1,
                (rc, path, ctx) -> {
                    KeeperException.Code code = KeeperException.Code.get(rc);
                    if (code != KeeperException.Code.OK && code != KeeperException.Code.NONODE) {
                        try {
                            deleteInBackground(nodePath, code);
                        } catch (IllegalStateException e) {
                            log.debug("Lock node {} is left to its session's end: {}", nodePath, e.toString());
                        }
                    }
                    answer.complete(null);
                },
                null);
        if (waitNanos <= 0) {
            return;
        }
        try {
            answer.get(waitNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            log.debug("No answer yet to the deletion of lock node {}; it goes on in the background", nodePath);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("unexpected failure of a ZooKeeper request", e.getCause());
        }
    }

    private void deleteInBackground(String nodePath, KeeperException.Code firstTry) {
        log.debug("Deleting lock node {} failed ({}); retrying in the background", nodePath, firstTry);
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

    String inNamespace(String nodePath) {
        return ZKPaths.fixForNamespace(curator.getNamespace(), nodePath);
    }

    /**
     * Curator's current raw handle, if it is connected.
     *
     * @throws KeeperException with code {@code CONNECTIONLOSS} if it is not
     */
    ZooKeeper connectedHandle() throws KeeperException {
        ZooKeeper zooKeeper;
        try {
            zooKeeper = curator.getZookeeperClient().getZooKeeper();
        } catch (KeeperException e) {
            throw e;
        } catch (Exception e) {
            throw (KeeperException) new KeeperException.ConnectionLossException().initCause(e);
        }
        if (zooKeeper.getState() != ZooKeeper.States.CONNECTED || zooKeeper.getSessionTimeout() <= 0) {
            throw new KeeperException.ConnectionLossException();
        }
        return zooKeeper;
    }

    /** A session of the client: its id and negotiated timeout; {@link #NONE} when there is none. */
    record Session(long id, int timeoutMs) {
        static final Session NONE = new Session(0, 0);

        boolean exists() {
            return id != 0 && timeoutMs > 0;
        }
    }

    /**
     * The answer to one read: the node's stat, null if it does not exist, and when the sync the read
     * followed was sent (no later than the read).
     */
    record NodeRead(Stat stat, long sentNanos) {}
}
