package dev.fencedlock.zookeeper;

import dev.fencedlock.spi.AbstractFencedLock;
import dev.fencedlock.spi.LeaseRequest;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
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
 *       acquisition starts again.
 *   <li>Track the lease in the {@link ConnectionWatch}. If the connection was interrupted at any
 *       point since step 2, the lease may have missed that event, so the node's existence and
 *       owner are confirmed with the server; a grant that cannot be confirmed is discarded as in
 *       step 3.
 *   <li>The fencing token is the lock node's {@code czxid}, the id of the transaction that created
 *       it. Transaction ids only grow across the whole ensemble, also across leader changes and
 *       when the container parent is deleted and re-created, which resets the sequential suffix.
 *       A later grant's node was created after an earlier grant's node, so its token is larger.
 * </ol>
 *
 * <p>Why a fresh {@code InterProcessMutex} per acquisition: the recipe is reentrant per thread and
 * per instance, and its {@code release()} must run on the acquiring thread. A new instance makes
 * every acquisition a new contender (so a second acquire from the same thread waits in line, as
 * the contract requires) and lets the lease release from any thread by deleting exactly its own
 * node. The instance is cheap to build (no I/O), and the round trips are those of the plain recipe:
 * create, list children (plus a watch on the predecessor while waiting), and delete on release.
 * {@code InterProcessSemaphoreMutex} would also be non-reentrant, but it needs a lease node and an
 * inner mutex, about twice the round trips.
 *
 * <p>Thread-safety: thread-safe; each acquisition's state is confined to its thread.
 */
final class ZooKeeperFencedLock extends AbstractFencedLock {
    private final ZooKeeperLockProvider provider;
    private final String lockPath;

    ZooKeeperFencedLock(String name, String lockPath, ZooKeeperLockProvider provider) {
        super(name, provider.runtime());
        this.provider = provider;
        this.lockPath = lockPath;
    }

    ZooKeeperLockProvider provider() {
        return provider;
    }

    /** The znode under which this lock's nodes are created. */
    String lockPath() {
        return lockPath;
    }

    @Override
    protected Optional<ZooKeeperLease> doAcquire(LeaseRequest request) throws InterruptedException {
        while (true) {
            provider.awaitConnected(request);
            long interruptionsBefore = provider.watch().interruptions();
            LockNodeDriver driver = new LockNodeDriver();
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
            Optional<ZooKeeperLease> lease = confirm(request, driver, interruptionsBefore, grantedAtNanos);
            if (lease.isPresent()) {
                return lease;
            }
        }
    }

    private Optional<ZooKeeperLease> confirm(
            LeaseRequest request, LockNodeDriver driver, long interruptionsBefore, long grantedAtNanos)
            throws InterruptedException {
        String nodePath = driver.createdPath();
        long session = provider.nodes().currentSessionId();
        Stat stat = driver.createdStat();
        try {
            if (stat == null) {
                stat = provider.nodes().stat(nodePath);
            }
            if (stat == null) {
                provider.discardGrant(name(), nodePath, "its lock node is gone");
                return Optional.empty();
            }
            if (stat.getEphemeralOwner() != session) {
                provider.discardGrant(
                        name(), nodePath, "its lock node belongs to an earlier session, which the server will expire");
                return Optional.empty();
            }
            ZooKeeperLease lease =
                    new ZooKeeperLease(this, request, nodePath, stat.getCzxid(), session, grantedAtNanos);
            provider.watch().track(lease);
            if (provider.watch().interruptions() != interruptionsBefore
                    && !provider.isStillOwned(name(), nodePath, session, stat.getCzxid())) {
                provider.watch().untrack(lease);
                provider.discardGrant(
                        name(), nodePath, "the connection was interrupted and the grant could not be confirmed");
                return Optional.empty();
            }
            return Optional.of(lease);
        } catch (InterruptedException e) {
            provider.nodes().delete(nodePath);
            throw e;
        } catch (KeeperException | RuntimeException e) {
            provider.discardGrant(name(), nodePath, "the grant could not be confirmed: " + e);
            return Optional.empty();
        }
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
