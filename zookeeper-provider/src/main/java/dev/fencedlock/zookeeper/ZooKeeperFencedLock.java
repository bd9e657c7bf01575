package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.AbstractFencedLock;
import dev.fencedlock.spi.LeaseRequest;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * A lock of the {@code zookeeper} backend: ZooKeeper's lock recipe, as Curator's {@code
 * InterProcessMutex} runs it, under {@code base-path/<encoded name>}, one new contender per
 * acquisition ({@link LockLine}).
 *
 * <p>Acquisition, every step bounded by the caller's wait plus one operation timeout ({@link
 * AcquisitionBound}, {@code fencedlock.zookeeper.operation-timeout}):
 *
 * <ol>
 *   <li>If the client is not connected, wait for the connection, at most one operation timeout
 *       and never past the bound; if it does not come, throw {@link
 *       dev.fencedlock.LockUnavailableException}.
 *   <li>Note the {@link ConnectionWatch#interruptions() interruption count}, then join the line
 *       ({@link LockLine}) on the connected handle: a protected ephemeral-sequential node created
 *       in one transaction with the record of the node's fencing token ({@link LockTokens}), and a
 *       wait for its turn until the caller's deadline. Every request is sent once and waited for
 *       at most what the bound allows; Curator's retry policy plays no part. The token follows the
 *       one token order of all backends ({@link dev.fencedlock.spi.TokenOrder}): at least the
 *       leader's wall clock at the create shifted left 16 bits, and above every token issued
 *       earlier for the lock name in this ensemble, also after its container node was reaped, its
 *       token node deleted as unused ({@link TokenNodeSweeper}) or its transaction ids restarted.
 *       Tokens grow in the order of the creates, which is the order of the grants. An attempt that
 *       failed for want of an answer, a connection or a session is tried again while the wait
 *       lasts; after that, the acquisition throws {@link dev.fencedlock.LockUnavailableException}
 *       with the cause, and a {@code tryAcquire(ZERO)} makes exactly one attempt.
 *   <li>Check the grant before handing it out. The node must belong to the session the client has
 *       now (CURATOR-604: after a session expired and a new one was opened, the old session's node
 *       can still be first in line; each attempt here waits on the handle it joined with, so it
 *       fails with its session, but the check stays). Such a grant is discarded (its node deleted)
 *       and the acquisition starts again, unless the wait is over: then the acquisition ends empty,
 *       so a grant that can never be handed out (a lease time shorter than a round trip) cannot
 *       make it spin.
 *   <li>Count the lease's validity from the create's send time, whose answer showed the node
 *       owned; a grant that waited in line longer than a third of its lease window confirms its
 *       node with an ownership check first ({@link LockNodes#read}, a read, not a write) and counts
 *       from that check instead.
 *   <li>Track the lease in the {@link ConnectionWatch}. If the connection was interrupted at any
 *       point since step 2, the lease may have missed that event, so the node's existence and
 *       owner are confirmed with the server; a grant that cannot be confirmed is discarded as in
 *       step 3. So is a grant whose lease an interruption already revoked, or that ran out before
 *       it could be handed out: it is never handed out, and closing it deletes its node and lets
 *       the watch go of it.
 * </ol>
 *
 * <p>Why a new contender per acquisition: a second acquire from the same thread must wait in line
 * (the locks are not reentrant), and a lease must release from any thread by deleting exactly its
 * own node. The requests are those of the plain recipe: create (here a transaction that also
 * records the token), list children (plus a watch on the predecessor while waiting) and delete on
 * release, so two writes per grant. The token node is read only when this client does not know its
 * current version ({@link TokenHints}: first use of the lock name, or another contender wrote it
 * since).
 *
 * <p>Thread-safety: thread-safe; each acquisition's state is confined to its thread.
 */
final class ZooKeeperFencedLock extends AbstractFencedLock {
    private final ZooKeeperLockProvider provider;
    private final String lockPath;
    private final String tokenPath;

    ZooKeeperFencedLock(String name, String lockPath, String tokenPath, ZooKeeperLockProvider provider) {
        super(name, provider.runtime());
        this.provider = provider;
        this.lockPath = lockPath;
        this.tokenPath = tokenPath;
    }

    ZooKeeperLockProvider provider() {
        return provider;
    }

    /** The znode under which this lock's nodes are created. */
    String lockPath() {
        return lockPath;
    }

    /** The persistent znode that records this lock's last token ({@link LockTokens}). */
    String tokenPath() {
        return tokenPath;
    }

    @Override
    protected Optional<ZooKeeperLease> doAcquire(LeaseRequest request) throws InterruptedException {
        AcquisitionBound bound = provider.bound(request);
        while (true) {
            ZooKeeper zooKeeper = provider.awaitConnected(request, bound);
            long interruptionsBefore = provider.watch().interruptions();
            LockLine.Created granted;
            try {
                granted = new LockLine(provider, zooKeeper, name(), lockPath, tokenPath, bound).acquire();
            } catch (KeeperException | TimeoutException e) {
                if (isTransient(e) && bound.waitLeft()) {
                    request.recordAttempt("an attempt failed and was given up: " + e);
                    continue;
                }
                throw provider.unavailable(name(), request.startNanos(), e);
            }
            if (granted == null) {
                provider.requireStarted();
                request.recordAttempt("another holder had the lock; this attempt's lock node was not first in line");
                return Optional.empty();
            }
            long grantedAtNanos = runtime().clock().nanoTime();
            Optional<ZooKeeperLease> lease = confirm(request, bound, granted, interruptionsBefore, grantedAtNanos);
            if (lease.isPresent() || !bound.waitLeft()) {
                return lease;
            }
        }
    }

    /**
     * Steps 3 to 5 of the acquisition: checks the grant and hands the lease out with the token its
     * lock node was created with, or discards the grant (recording why in {@code request}) and
     * returns empty.
     */
    private Optional<ZooKeeperLease> confirm(
            LeaseRequest request,
            AcquisitionBound bound,
            LockLine.Created created,
            long interruptionsBefore,
            long grantedAtNanos)
            throws InterruptedException {
        String nodePath = created.path();
        LockNodes.Session session = provider.nodes().currentSession();
        ZooKeeperLease lease;
        try {
            if (!session.exists()) {
                return discard(request, nodePath, "the client has no session now");
            }
            if (created.sessionId() != session.id()) {
                return discard(
                        request, nodePath, "its lock node belongs to an earlier session, which the server will expire");
            }
            long confirmedSentNanos = created.sentNanos();
            if (waitedLong(request, session, grantedAtNanos - confirmedSentNanos)) {
                LockNodes.NodeRead read = provider.nodes().read(nodePath, checkWaitNanos(bound, session));
                Stat stat = read.stat();
                if (stat == null) {
                    return discard(request, nodePath, "its lock node is gone");
                }
                if (stat.getEphemeralOwner() != session.id() || stat.getCzxid() != created.czxid()) {
                    return discard(request, nodePath, "its lock node is no longer this session's");
                }
                confirmedSentNanos = read.sentNanos();
            }
            lease = new ZooKeeperLease(
                    this,
                    request,
                    nodePath,
                    created.token(),
                    created.czxid(),
                    session,
                    grantedAtNanos,
                    confirmedSentNanos);
        } catch (InterruptedException e) {
            provider.nodes().delete(nodePath, 0);
            throw e;
        } catch (KeeperException | TimeoutException | RuntimeException e) {
            return discard(request, nodePath, "the grant could not be confirmed: " + e);
        }
        provider.watch().track(lease);
        try {
            if (provider.watch().interruptions() != interruptionsBefore
                    && provider.ownedSince(
                                    name(), nodePath, session.id(), lease.czxid(), checkWaitNanos(bound, session))
                            .isEmpty()) {
                return discard(request, lease, "the connection was interrupted and the grant could not be confirmed");
            }
            if (!lease.isValid()) {
                long sinceGrant = runtime().clock().nanoTime() - grantedAtNanos;
                if (sinceGrant >= SessionBound.nanos(request.leaseTime())) {
                    request.recordGrantWithoutValidity("handing the grant out took " + sinceGrant / 1_000_000
                            + " ms of the " + request.leaseTime().toMillis() + " ms lease");
                }
                return discard(
                        request,
                        lease,
                        "it was revoked or ran out before it could be handed out (lease time "
                                + request.leaseTime().toMillis() + "ms)");
            }
            lease.startChecks();
            return Optional.of(lease);
        } catch (RuntimeException e) {
            // From here on the lease is tracked: only closing it lets the connection watch go of it.
            return discard(request, lease, "the grant could not be confirmed: " + e);
        }
    }

    /**
     * Whether another attempt may succeed where this one failed: no answer in time, a connection
     * or session problem, or this contender's node gone from the line (its session expired).
     */
    private static boolean isTransient(Exception e) {
        return e instanceof TimeoutException
                || LockNodes.isConnectionProblem(e)
                || (e instanceof KeeperException keeper && keeper.code() == KeeperException.Code.NONODE);
    }

    /** How long a check of a grant may wait: a fraction of the session timeout, within the acquisition's bound. */
    private static long checkWaitNanos(AcquisitionBound bound, LockNodes.Session session) {
        return Math.min(SessionBound.requestTimeoutNanos(session.timeoutMs()), bound.requestWaitNanos());
    }

    /**
     * Whether a grant came so long after its lock node's create that the create's answer no longer
     * vouches for a useful validity: more than a third of the lease's window (the lease time or the
     * session bound, whichever is shorter), the period after which a lease is checked anyway. Such a
     * grant (one that waited in line) confirms its node with an ownership check first.
     */
    private static boolean waitedLong(LeaseRequest request, LockNodes.Session session, long sinceCreateNanos) {
        long window =
                Math.min(SessionBound.nanos(request.leaseTime()), SessionBound.validityNanos(session.timeoutMs()));
        return sinceCreateNanos > window / 3;
    }

    private Optional<ZooKeeperLease> discard(LeaseRequest request, String nodePath, String reason) {
        request.recordAttempt("a grant was discarded: " + reason);
        provider.discardGrant(name(), nodePath, reason);
        return Optional.empty();
    }

    private Optional<ZooKeeperLease> discard(LeaseRequest request, ZooKeeperLease lease, String reason) {
        request.recordAttempt("a grant was discarded: " + reason);
        provider.discardGrant(lease, reason);
        return Optional.empty();
    }
}
