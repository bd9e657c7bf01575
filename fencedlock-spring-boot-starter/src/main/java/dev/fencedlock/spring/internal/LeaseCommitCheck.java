package dev.fencedlock.spring.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.spring.FencedWriteRefusedException;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;

/**
 * Before a fenced transaction commits: flushes it, so that the writes an ORM still holds have been
 * sent (and fenced), then requires the lease to be valid, else the transaction rolls back with
 * {@link FencedWriteRefusedException}. After it completes, lets the thread begin the next fenced
 * transaction.
 *
 * <p>The check narrows, but cannot close, the window in which a lease runs out between the check
 * and the commit; in that window the fence row keeps the data right: a newer holder's transaction
 * waits for this one at its guard, and this one's writes were ordered before it.
 */
final class LeaseCommitCheck implements TransactionSynchronization {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseCommitCheck.class);

    private final ActiveLease active;
    private final TransactionStatus status;
    private final FencedTransaction fenced;
    /** The commit step for tracing, from {@link #beforeCommit} until {@link #afterCompletion}. */
    private LockedObservations.Step commit;

    LeaseCommitCheck(ActiveLease active, TransactionStatus status, FencedTransaction fenced) {
        this.active = active;
        this.status = status;
        this.fenced = fenced;
    }

    @Override
    public int getOrder() {
        // last, after other synchronizations may still have written
        return Ordered.LOWEST_PRECEDENCE;
    }

    /**
     * Checks the lease before the flush too: a holder that stalled past it is refused without
     * sending its writes to a session the database may already have ended.
     */
    @Override
    public void beforeCommit(boolean readOnly) {
        Lease lease = active.lease();
        commit = active.observations()
                .start(LockedObservations.COMMIT, lease.lockName())
                .highCardinality(LockedObservations.TOKEN, Long.toString(lease.token()));
        try {
            requireValid();
            try {
                status.flush();
            } catch (RuntimeException failure) {
                active.commitFailure(failure);
                throw failure;
            }
            requireValid();
        } catch (RuntimeException failure) {
            commit.error(failure);
            throw failure;
        }
        active.commitSent(true);
    }

    /** {@link FencedTransaction#beforeCommit}, its refusal stated for Spring and recorded. */
    private void requireValid() {
        try {
            fenced.beforeCommit();
        } catch (FenceRefusedException refused) {
            FencedWriteRefusedException refusal = new FencedWriteRefusedException(refused);
            active.refusedAtCommit(refusal);
            throw refusal;
        } catch (SQLException e) {
            throw new DataAccessResourceFailureException(
                    "The fence guard of lock '" + fenced.lockName() + "' failed before the commit: " + e.getMessage(),
                    e);
        }
    }

    /** Gives the session back what the guard bounded for this transaction (MariaDB's idle timeout). */
    @Override
    public void afterCompletion(int completionStatus) {
        active.transactionCompleted();
        if (commit != null) {
            commit.lowCardinality(
                            LockedObservations.OUTCOME,
                            completionStatus == STATUS_COMMITTED ? "committed" : "rolled_back")
                    .stop();
            commit = null;
        }
        try {
            fenced.afterCompletion();
        } catch (SQLException | RuntimeException e) {
            // a connection the server closed has nothing to give back; a pool drops a broken one
            LOG.debug(
                    "Could not restore the session after the fenced transaction of lock '{}'",
                    active.lease().lockName(),
                    e);
        }
    }
}
