package dev.fencedlock.zookeeper;

import dev.fencedlock.LeaseLostException;
import dev.fencedlock.spi.AbstractLease;
import dev.fencedlock.spi.LeaseRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.state.ConnectionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One grant of a ZooKeeper lock: the ephemeral lock node {@link #nodePath()}, created in
 * transaction {@link #czxid()} and owned by session {@link #sessionId()}, with the fencing token
 * that {@link LockTokens} issued for it.
 *
 * <p>ZooKeeper lock nodes have no time to live: a node lasts as long as its session, and the
 * server may expire the session, and so hand the lock on, while this process is stopped and hears
 * nothing. So validity is never more than the {@linkplain SessionBound session bound} past the
 * last round trip that found the node owned (the create, or a later ownership check), measured
 * from when that request was sent:
 *
 * <ol>
 *   <li>every grant is valid until {@code min(lease end, sent + session bound)}, where {@code
 *       sent} is the send time of the last successful round trip;
 *   <li>an auto-renewing lease is granted a lease time of at most the session bound, so that the
 *       base class renews it (one ownership check) every third of {@code min(lease time, session
 *       bound)}; {@link #leaseTime()} reports that effective lease time;
 *   <li>a fixed lease keeps its lease end ({@code grant + lease time}, moved by {@link #extend}),
 *       and this class checks its ownership every third of {@code min(lease time, session bound)}
 *       until that end, each check moving validity up to, never past, the end;
 *   <li>a check that finds the node gone, or owned by another session, marks the lease lost; a
 *       check with no answer within a fraction of the session timeout, or before the validity
 *       left runs out, counts as "cannot tell" and is retried while validity remains, so an answer
 *       that comes after validity ran out never revives the lease.
 * </ol>
 *
 * <p>A connection interruption revokes the lease at once (see {@link ConnectionWatch}); a lease
 * that runs out is marked lost by the base class, which then calls {@link #doRelease()} to delete
 * the node.
 *
 * <p>The ownership check is a {@code sync} and a read of the lock node on the server the client is
 * connected to (batched with other leases' checks: {@link BatchedReads}). The sync makes it hold in an ensemble: a follower cut off from the leader, which
 * would go on showing the node while the leader expires the session, cannot answer it, so the
 * lease runs out instead of being renewed (see {@link SessionBound}).
 *
 * <p>Thread-safety: as {@link AbstractLease}. Ownership checks are sent from the lease scheduler
 * without waiting; their answers arrive on ZooKeeper's event thread.
 */
final class ZooKeeperLease extends AbstractLease {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLease.class);

    /**
     * Set while the answer of a scheduled check of a fixed lease is applied: {@link #doExtend} takes
     * it instead of asking the server, and keeps the lease end.
     */
    private static final ThreadLocal<CheckAnswer> CHECKED = new ThreadLocal<>();

    private final ZooKeeperLockProvider provider;
    private final String nodePath;
    private final long czxid;
    private final long sessionId;
    private final int sessionTimeoutMs;
    private final long boundNanos;

    // Fixed leases only. Written in the constructor and by doExtend, which the base class never
    // runs concurrently with itself or doRelease; volatile for the scheduler threads.
    private volatile long endNanos;
    private volatile long checkPeriodNanos;
    private volatile ScheduledFuture<?> checkTask;

    /**
     * @param session the session that owns the node, with its negotiated timeout
     * @param grantedAtNanos when the recipe reported the grant; a fixed lease's time counts from here
     * @param confirmedSentNanos when the last request that found the node owned by {@code session}
     *     was sent (the create, or an ownership check after a long wait in line)
     */
    ZooKeeperLease(
            ZooKeeperFencedLock lock,
            LeaseRequest request,
            String nodePath,
            long token,
            long czxid,
            LockNodes.Session session,
            long grantedAtNanos,
            long confirmedSentNanos) {
        super(
                lock.name(),
                token,
                grantedLeaseTime(request, session.timeoutMs()),
                request.autoRenew(),
                initialValidUntil(request, session.timeoutMs(), grantedAtNanos, confirmedSentNanos),
                lock.provider().runtime());
        this.provider = lock.provider();
        this.nodePath = nodePath;
        this.czxid = czxid;
        this.sessionId = session.id();
        this.sessionTimeoutMs = session.timeoutMs();
        this.boundNanos = SessionBound.validityNanos(session.timeoutMs());
        this.endNanos = grantedAtNanos + SessionBound.nanos(request.leaseTime());
        this.checkPeriodNanos =
                SessionBound.checkPeriodNanos(SessionBound.nanos(request.leaseTime()), sessionTimeoutMs);
    }

    private static Duration grantedLeaseTime(LeaseRequest request, int sessionTimeoutMs) {
        long bound = SessionBound.validityNanos(sessionTimeoutMs);
        return request.autoRenew() && SessionBound.nanos(request.leaseTime()) > bound
                ? Duration.ofNanos(bound)
                : request.leaseTime();
    }

    private static long initialValidUntil(
            LeaseRequest request, int sessionTimeoutMs, long grantedAtNanos, long confirmedSentNanos) {
        long bound = SessionBound.validityNanos(sessionTimeoutMs);
        long lease = SessionBound.nanos(request.leaseTime());
        return request.autoRenew()
                ? confirmedSentNanos + Math.min(lease, bound)
                : Math.min(grantedAtNanos + lease, confirmedSentNanos + bound);
    }

    /** Full path of the lock node, relative to the Curator namespace. */
    String nodePath() {
        return nodePath;
    }

    /** The id of the transaction that created the lock node: tells this grant's node from any other. */
    long czxid() {
        return czxid;
    }

    long sessionId() {
        return sessionId;
    }

    void connectionInterrupted(ConnectionState state) {
        markLost(
                LeaseLostException.Reason.SESSION_LOST,
                "the ZooKeeper connection was " + state + ", so the session that owns lock node " + nodePath
                        + " may be gone",
                null);
    }

    /** Starts the ownership checks of a fixed lease; called once, when the grant is confirmed. */
    void startChecks() {
        if (!autoRenewing()) {
            scheduleCheck(checkPeriodNanos);
        }
    }

    /**
     * Checks with the server that the lock node still exists and is still owned by this lease's
     * session, rather than trusting the connection state alone: it also catches a node deleted by
     * an operator, or a session that the server expired before this client noticed. The validity
     * returned runs from the check's send time, as the class documentation describes. Blocks the
     * caller (a caller's own {@link #extend}) for at most a fraction of the session timeout; the
     * renewals and scheduled checks never come here to ask the server.
     */
    @Override
    protected Optional<Duration> doExtend(Duration leaseTime) {
        CheckAnswer scheduled = CHECKED.get();
        OptionalLong sentNanos;
        if (scheduled != null) {
            sentNanos = scheduled.sentNanos();
        } else {
            try {
                sentNanos = askServer(now()).join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException failure ? failure : e;
            }
        }
        return validity(leaseTime, sentNanos, scheduled == null);
    }

    /** The renewal of an auto-renewing lease: asks the server and returns without waiting. */
    @Override
    protected CompletableFuture<Optional<Duration>> doExtendAsync(Duration leaseTime) {
        return askServer(now()).thenApply(sentNanos -> validity(leaseTime, sentNanos, false));
    }

    /**
     * Starts an ownership check that waits for the server at most a fraction of the session
     * timeout, and no longer than the validity left.
     */
    private CompletableFuture<OptionalLong> askServer(long callNanos) {
        long waitNanos = Math.min(
                SessionBound.requestTimeoutNanos(sessionTimeoutMs), remaining().toNanos());
        if (waitNanos <= 0) {
            return CompletableFuture.failedFuture(
                    tooLate(callNanos, "the lease's validity ran out before its ownership could be checked"));
        }
        return provider.ownedSinceAsync(lockName(), nodePath, sessionId, czxid, waitNanos)
                .thenApply(sentNanos -> {
                    if (sentNanos.isPresent() && remaining().isZero()) {
                        // However the answer was scheduled: an answer after the end revives nothing.
                        throw tooLate(callNanos, "the server's answer came after the lease's validity ran out");
                    }
                    return sentNanos;
                });
    }

    /**
     * The validity an answer gives, counted from now (the base class counts it from a moment no
     * later, so never past what the answer vouches for).
     *
     * @param newLeaseTime whether a fixed lease's end moves to now plus {@code leaseTime} (a
     *     caller's {@link #extend}), rather than staying (a scheduled check)
     */
    private Optional<Duration> validity(Duration leaseTime, OptionalLong sentNanos, boolean newLeaseTime) {
        if (sentNanos.isEmpty()) {
            cancelChecks();
            return Optional.empty();
        }
        long nowNanos = now();
        long validUntilNanos;
        if (autoRenewing()) {
            validUntilNanos = sentNanos.getAsLong() + Math.min(SessionBound.nanos(leaseTime), boundNanos);
        } else {
            if (newLeaseTime) {
                endNanos = nowNanos + SessionBound.nanos(leaseTime);
                checkPeriodNanos = SessionBound.checkPeriodNanos(SessionBound.nanos(leaseTime), sessionTimeoutMs);
            }
            validUntilNanos = Math.min(endNanos, sentNanos.getAsLong() + boundNanos);
            scheduleNextCheck();
        }
        if (validUntilNanos - nowNanos <= 0) {
            throw tooLate(nowNanos, "the server's answer came after the lease's validity ran out");
        }
        return Optional.of(Duration.ofNanos(validUntilNanos - nowNanos));
    }

    private long now() {
        return provider.runtime().clock().nanoTime();
    }

    private RuntimeException tooLate(long startNanos, String what) {
        return provider.unavailable(lockName(), startNanos, new TimeoutException(what));
    }

    /** The release of a lost lease: the deletion is sent, never waited for. */
    @Override
    protected CompletableFuture<Void> doReleaseAsync() {
        doRelease();
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Deletes this lease's own lock node, never another. Deletion is guaranteed: if the request
     * fails, Curator keeps retrying in the background, so a failed release never leaves a node
     * that would block this client's own later acquisitions. A lease being closed waits for the
     * server's answer, so that the lock is usually free for other clients when {@link #close()}
     * returns, but no longer than a fraction of the session timeout. The release of a lost lease
     * runs on the lease scheduler and does not wait at all: a silent server must not keep those
     * few threads from the other leases' renewals and expiries (this client's own later requests
     * are served after the deletion anyway).
     */
    @Override
    protected void doRelease() {
        cancelChecks();
        provider.watch().untrack(this);
        provider.nodes().delete(nodePath, isClosed() ? SessionBound.requestTimeoutNanos(sessionTimeoutMs) : 0);
    }

    /**
     * One scheduled ownership check of a fixed lease, on the scheduler: sends the check and
     * returns. The answer is applied on the runtime's backend executor through {@link #extend}, so
     * that the base class applies its rules (no check of a lease that is lost, closed or has run
     * out) and takes the validity; {@link #doExtend} then uses the answer and keeps the lease end.
     */
    private void check() {
        askServer(now()).whenComplete((sentNanos, failure) -> {
            try {
                provider.runtime().backendExecutor().execute(() -> apply(sentNanos, failure));
            } catch (RejectedExecutionException e) {
                scheduleRetry();
            }
        });
    }

    private void apply(OptionalLong sentNanos, Throwable failure) {
        if (failure != null) {
            log.debug("Ownership check of lock '{}' (token {}) failed: {}", lockName(), token(), failure.toString());
            scheduleRetry();
            return;
        }
        CHECKED.set(new CheckAnswer(sentNanos));
        try {
            extend(leaseTime());
        } catch (LeaseLostException e) {
            // Lost or closed: the base class has told the listeners; no more checks.
        } catch (RuntimeException e) {
            log.debug("Ownership check of lock '{}' (token {}) failed: {}", lockName(), token(), e.toString());
            scheduleRetry();
        } finally {
            CHECKED.remove();
        }
    }

    private void scheduleNextCheck() {
        long period = checkPeriodNanos;
        if (provider.runtime().clock().nanoTime() + period - endNanos < 0) {
            scheduleCheck(period);
        } else {
            cancelChecks();
        }
    }

    /** After a check that could not tell: try again sooner, while validity remains. */
    private void scheduleRetry() {
        long left = remaining().toNanos();
        if (left > 0) {
            scheduleCheck(Math.max(1_000_000L, Math.min(checkPeriodNanos / 4, left / 3)));
        }
    }

    private void scheduleCheck(long delayNanos) {
        cancelChecks();
        try {
            checkTask = provider.runtime().scheduler().schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            checkTask = null; // the client is closing, and closes this lease too
        }
    }

    private void cancelChecks() {
        ScheduledFuture<?> task = checkTask;
        if (task != null) {
            task.cancel(false);
        }
    }

    /** The answer of a scheduled check, handed to {@link #doExtend}. */
    private record CheckAnswer(OptionalLong sentNanos) {}
}
