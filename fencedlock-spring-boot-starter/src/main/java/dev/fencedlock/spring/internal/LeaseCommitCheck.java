package dev.fencedlock.spring.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.FencedWriteRefusedException;
import org.springframework.core.Ordered;
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
    private final ActiveLease active;
    private final TransactionStatus status;

    LeaseCommitCheck(ActiveLease active, TransactionStatus status) {
        this.active = active;
        this.status = status;
    }

    @Override
    public int getOrder() {
        // last, after other synchronizations may still have written
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void beforeCommit(boolean readOnly) {
        status.flush();
        Lease lease = active.lease();
        if (!lease.isValid()) {
            FencedWriteRefusedException refusal = new FencedWriteRefusedException(
                    "The lease on lock '" + lease.lockName() + "' with token " + lease.token()
                            + " is no longer valid at commit; the transaction is rolled back",
                    lease.lockName(),
                    lease.token(),
                    null,
                    null);
            active.refusedAtCommit(refusal);
            throw refusal;
        }
    }

    @Override
    public void afterCompletion(int completionStatus) {
        active.transactionCompleted();
    }
}
