package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.AbstractFencedLock;
import dev.fencedlock.spi.LeaseRequest;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * A lock of the {@code zookeeper} backend: Curator's {@link InterProcessMutex} recipe under
 * {@code base-path/<encoded name>}, one fresh mutex per acquisition.
 *
 * <p>Acquisition:
 *
 * <ol>
 *   <li>If the client is not connected, wait for the connection until the deadline; if it does not
 *       come, throw {@link dev.fencedlock.LockUnavailableException}.
 *   <li>Note the {@link ConnectionWatch#interruptions() interruption count}, then run a new {@code
 *       InterProcessMutex} with {@link LockNodeDriver}: it creates a protected ephemeral-sequential
 *       node whose create reply carries the node's {@code Stat}, and waits in line for its turn
 *       until the deadline.
 *   <li>Check the grant before handing it out. The node must belong to the session the client has
 *       now: after a session expired and a new one was opened, Curator can still see the old
 *       session's node, not yet deleted, first in line, and would report a grant that the server
 *       is about to take away (CURATOR-604). Such a grant is discarded (its node deleted) and the
 *       acquisition starts again, unless the wait is over: then the acquisition ends empty, so a
 *       grant that can never be handed out (a lease time shorter than a round trip) cannot make it
 *       spin.
 *   <li>Issue the fencing token ({@link LockTokens}): one transaction that checks the lock node
 *       still exists and records the token on the lock's token node. The token follows the one
 *       token order of all backends ({@link dev.fencedlock.spi.TokenOrder}): at least the leader's
 *       wall clock at that write shifted left 16 bits, and above every token issued earlier for
 *       the lock name in this ensemble, also after its container node was reaped or its
 *       transaction ids restarted. The lease's validity counts from that write's send time, since
 *       its answer shows the node still there.
 *   <li>Track the lease in the {@link ConnectionWatch}. If the connection was interrupted at any
 *       point since step 2, the lease may have missed that event, so the node's existence and
 *       owner are confirmed with the server; a grant that cannot be confirmed is discarded as in
 *       step 3. So is a grant whose lease an interruption already revoked, or that ran out before
 *       it could be handed out: it is never handed out, and closing it deletes its node and lets
 *       the watch go of it.
 * </ol>
 *
 * <p>Why a fresh {@code InterProcessMutex} per acquisition: the recipe is reentrant per thread and
 * per instance, and its {@code release()} must run on the acquiring thread. A new instance makes
 * every acquisition a new contender (so a second acquire from the same thread waits in line, as
 * the contract requires) and lets the lease release from any thread by deleting exactly its own
 * node. The instance is cheap to build (no I/O), and the round trips are those of the plain recipe,
 * create, list children (plus a watch on the predecessor while waiting) and delete on release, plus
 * the token write of step 4 (the token node's read goes out with the create).
 * {@code InterProcessSemaphoreMutex} would also be non-reentrant, but it needs a lease node and an
 * inner mutex, about twice the round trips.
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
        while (true) {
            provider.awaitConnected(request);
            long interruptionsBefore = provider.watch().interruptions();
            CompletableFuture<LockTokens.Record> tokenRead = provider.tokens().prefetch(tokenPath);
            LockNodeDriver driver = new LockNodeDriver(runtime().clock());
            boolean acquired;
            try {
                acquired = new InterProcessMutex(provider.curator(), lockPath, driver)
                        .acquire(waitLeftNanos(request), TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                rethrowIfInterrupted(e);
                if (LockNodes.isConnectionProblem(e) && waitLeftNanos(request) > 0) {
                    request.recordAttempt("the ZooKeeper connection failed while waiting: " + e);
                    continue;
                }
                throw provider.unavailable(name(), request.startNanos(), e);
            }
            if (!acquired) {
                provider.requireStarted();
                request.recordAttempt("another holder had the lock; this attempt's lock node was not first in line");
                return Optional.empty();
            }
            long grantedAtNanos = runtime().clock().nanoTime();
            Optional<ZooKeeperLease> lease = confirm(request, driver, tokenRead, interruptionsBefore, grantedAtNanos);
            if (lease.isPresent() || waitLeftNanos(request) <= 0) {
                return lease;
            }
        }
    }

    /**
     * Steps 3 to 5 of the acquisition: checks the grant, issues its token and hands the lease out,
     * or discards the grant (recording why in {@code request}) and returns empty.
     */
    private Optional<ZooKeeperLease> confirm(
            LeaseRequest request,
            LockNodeDriver driver,
            CompletableFuture<LockTokens.Record> tokenRead,
            long interruptionsBefore,
            long grantedAtNanos)
            throws InterruptedException {
        String nodePath = driver.createdPath();
        LockNodes.Session session = provider.nodes().currentSession();
        ZooKeeperLease lease;
        try {
            if (!session.exists()) {
                return discard(request, nodePath, "the client has no session now");
            }
            long waitNanos = SessionBound.requestTimeoutNanos(session.timeoutMs());
            Stat stat = driver.createdStat();
            if (stat == null) {
                stat = provider.nodes().read(nodePath, waitNanos).stat();
            }
            if (stat == null) {
                return discard(request, nodePath, "its lock node is gone");
            }
            if (stat.getEphemeralOwner() != session.id()) {
                return discard(
                        request, nodePath, "its lock node belongs to an earlier session, which the server will expire");
            }
            LockTokens.Issued issued = provider.tokens().issue(tokenPath, nodePath, session.id(), tokenRead, waitNanos);
            lease = new ZooKeeperLease(
                    this,
                    request,
                    nodePath,
                    issued.token(),
                    stat.getCzxid(),
                    session,
                    grantedAtNanos,
                    issued.sentNanos());
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
                                    name(),
                                    nodePath,
                                    session.id(),
                                    lease.czxid(),
                                    SessionBound.requestTimeoutNanos(session.timeoutMs()))
                            .isEmpty()) {
                return discard(request, lease, "the connection was interrupted and the grant could not be confirmed");
            }
            if (!lease.isValid()) {
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

    private long waitLeftNanos(LeaseRequest request) {
        return Math.max(0, request.remainingWaitNanos(runtime().clock().nanoTime()));
    }

    /**
     * Curator reports an interrupted wait either as an {@link InterruptedException} or as another
     * exception with the thread's interrupt flag set again; either way the lock node has been
     * deleted (or its deletion queued) by the recipe.
     */
    private void rethrowIfInterrupted(Exception e) throws InterruptedException {
        if (e instanceof InterruptedException || Thread.interrupted()) {
            Thread.interrupted();
            InterruptedException interrupted =
                    new InterruptedException("interrupted while acquiring lock '" + name() + "'");
            interrupted.initCause(e);
            throw interrupted;
        }
    }
}
