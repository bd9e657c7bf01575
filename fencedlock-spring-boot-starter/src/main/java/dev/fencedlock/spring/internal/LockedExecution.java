package dev.fencedlock.spring.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.FenceRefusalListener;
import dev.fencedlock.spring.FencedWriteRefusedException;
import java.util.Optional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs the body of a locked call with its lease current on the thread: bound for fencing-jpa's
 * entity stamping and offered to the transaction managers' fence guard for every transaction the
 * body begins. Refusals, however wrapped, leave as {@link FencedWriteRefusedException} and are
 * reported to the {@link FenceRefusalListener}. Thread-safe; the binding is per thread.
 */
final class LockedExecution {
    private final FenceRefusalListener refusals;
    private final LockedObservations observations;

    public LockedExecution(FenceRefusalListener refusals) {
        this(refusals, LockedObservations.NONE);
    }

    /** @param observations where locked calls report their steps for tracing */
    public LockedExecution(FenceRefusalListener refusals, LockedObservations observations) {
        this.refusals = refusals;
        this.observations = observations;
    }

    public LockedObservations observations() {
        return observations;
    }

    /**
     * Fails when a transaction is already active on this thread: a lock taken inside it would
     * neither fence its earlier statements nor outlive its commit.
     *
     * @throws IllegalStateException naming {@code what} when a transaction is active
     */
    public static void requireNoTransaction(String what) {
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            String name = TransactionSynchronizationManager.getCurrentTransactionName();
            throw new IllegalStateException(what + " was called inside an active transaction"
                    + (name == null ? " (one without a name, e.g. begun by a TransactionTemplate)" : " (" + name + ")")
                    + "; the lock must be taken before the transaction begins and released after it"
                    + " completes, so call it from outside the transaction");
        }
    }

    /** Reports a refusal raised before any transaction began (a presented token missing or not trusted). */
    public void refused(FencedWriteRefusedException refusal) {
        refusals.refused(refusal);
    }

    /** Runs {@code work} under {@code lease}; the caller releases the lease afterwards. */
    public <T> T run(Lease lease, LockedWork<T> work) throws Throwable {
        ActiveLease active = ActiveLease.open(lease, observations);
        try {
            return work.run();
        } catch (Throwable failure) {
            Optional<FencedWriteRefusedException> refusal = Refusals.find(failure);
            if (refusal.isEmpty()) {
                refusal = EndedTransactions.refusal(active, failure);
            }
            if (refusal.isEmpty()) {
                refusal = active.refusalAtCommit();
                refusal.ifPresent(refused -> refused.addSuppressed(failure));
            }
            if (refusal.isEmpty()) {
                throw failure;
            }
            refusals.refused(refusal.get());
            throw refusal.get();
        } finally {
            active.close();
        }
    }
}
