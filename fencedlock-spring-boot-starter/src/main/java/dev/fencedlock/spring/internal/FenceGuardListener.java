package dev.fencedlock.spring.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.LockException;
import dev.fencedlock.jdbc.FenceRowBusyException;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.spring.FencedWriteRefusedException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Fences every transaction that begins while a locked call runs on the thread, on one transaction
 * manager: a thin adapter that runs fencing-jdbc's {@link FencedTransaction} steps at Spring's
 * transaction callbacks and states their refusals as Spring exceptions.
 *
 * <ol>
 *   <li>right after the transaction began, and before the caller's first statement, {@link
 *       FencedTransaction#begin} on the transaction's connection (for a JPA transaction manager the
 *       JDBC connection it exposes, which the session and {@code JdbcTemplate} share): the lease
 *       must be valid, then the guard, which also bounds how long the transaction may sit idle (the
 *       lease's remaining time plus a grace, put back after the transaction), so the database ends
 *       a holder that stalls inside it. Once per transaction: where fencing-jpa began the same
 *       steps for the same lease on that connection (when a JPA transaction begins; on PostgreSQL
 *       its guard waits for the first statement and then runs here, alone), they are not repeated;
 *   <li>a lease that is no longer valid when the transaction begins, a refusal, or any failure of
 *       the guard rolls the transaction back at once and is thrown from the transaction's begin, as
 *       {@link FencedWriteRefusedException} with the core refusal as its cause, so the method body
 *       never runs;
 *   <li>before commit, the transaction is flushed and the lease must still be valid, and after it
 *       the session is put back ({@link LeaseCommitCheck});
 *   <li>a rollback that fails because the database had ended the transaction is rethrown as the
 *       refusal it stands for ({@link #afterRollback}).
 * </ol>
 *
 * <p>Only new, read-write transactions are fenced: a joined or nested (savepoint) transaction is
 * part of the fenced one, and a read-only one writes nothing. A second new transaction while a
 * fenced one is still open on the thread ({@code REQUIRES_NEW} inside a locked call) is refused: its
 * guard would wait for the suspended outer transaction's row lock forever ({@link #beforeBegin}).
 *
 * <p>Thread-safe: it keeps no state of its own; per-call state lives in {@link ActiveLease}.
 */
final class FenceGuardListener implements TransactionExecutionListener {
    private final PlatformTransactionManager transactionManager;
    private final DataSource dataSource;
    private final FenceTable table;

    /**
     * @param dataSource the data source whose connection the transaction manager binds; null when
     *     it exposes none, which refuses every fenced transaction on it
     */
    public FenceGuardListener(PlatformTransactionManager transactionManager, DataSource dataSource, FenceTable table) {
        this.transactionManager = transactionManager;
        this.dataSource = dataSource;
        this.table = table;
    }

    /**
     * Refuses a new transaction while a fenced one is open on the thread, before anything of it
     * begins (fencing-jpa's own guard would otherwise already wait at begin): the outer
     * transaction holds the lock's fence row until it ends, which it cannot do while suspended.
     */
    @Override
    public void beforeBegin(TransactionExecution transaction) {
        Optional<ActiveLease> open = ActiveLease.current().filter(ActiveLease::transactionOpen);
        if (open.isPresent()) {
            throw new IllegalStateException("A new transaction began while the fenced transaction of lock '"
                    + open.get().lease().lockName() + "' is still open on this thread (REQUIRES_NEW inside a"
                    + " locked call); it would wait for the outer transaction's fence row forever, so it is"
                    + " refused");
        }
        ActiveLease.current().ifPresent(active -> active.beginning(true));
        if (transaction.isReadOnly()) {
            suspendJpaBinding();
        }
    }

    /**
     * A read-only transaction is not fenced, by fencing-jpa either: its lease is unbound from
     * fencing-jpa until the transaction has begun ({@link ActiveLease#suspendJpaBinding}).
     */
    private static void suspendJpaBinding() {
        Optional<ActiveLease> current = ActiveLease.current();
        if (current.isPresent()) {
            try {
                current.get().suspendJpaBinding();
            } catch (Exception e) {
                throw new IllegalStateException(
                        "Could not unbind the lease of lock '"
                                + current.get().lease().lockName() + "' for a read-only transaction",
                        e);
            }
        }
    }

    @Override
    public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
        ActiveLease.current().ifPresent(active -> {
            active.beginning(false);
            active.resumeJpaBinding();
        });
        if (beginFailure != null) {
            Optional<ActiveLease> active = ActiveLease.current();
            if (active.isPresent()) {
                Optional<ConcurrencyFailureException> concurrency =
                        concurrencyFailure(beginFailure, active.get().lease().lockName());
                if (concurrency.isPresent()) {
                    throw concurrency.get();
                }
            }
            return;
        }
        if (!transaction.isNewTransaction() || transaction.isReadOnly()) {
            return;
        }
        Optional<ActiveLease> current = ActiveLease.current();
        if (current.isEmpty()) {
            return;
        }
        ActiveLease active = current.get();
        Lease lease = active.lease();
        if (dataSource == null) {
            throw abandon(
                    transaction,
                    new IllegalStateException("Transaction manager "
                            + transactionManager.getClass().getName()
                            + " exposes no JDBC DataSource, so its transactions cannot be fenced for lock '"
                            + lease.lockName() + "'"));
        }
        FencedTransaction fenced = enter(transaction, lease);
        active.transactionOpened();
        TransactionSynchronizationManager.registerSynchronization(
                new LeaseCommitCheck(active, (TransactionStatus) transaction, fenced));
    }

    /**
     * A fenced transaction whose rollback failed because the database had already ended it (its
     * holder stalled past the lease and the guard's idle bound): throws the refusal that this is
     * ({@link EndedTransactions}), or the lease check's refusal when that is what was rolled back,
     * instead of the rollback's failure, the failure as its cause. Spring calls this while it
     * rethrows the rollback's failure, so the caller gets the refusal whichever way it began the
     * transaction ({@code @Locked}, {@code FencedTransactions}, a lease bound with {@code
     * CurrentLease.bind}).
     */
    @Override
    public void afterRollback(TransactionExecution transaction, Throwable rollbackFailure) {
        if (rollbackFailure == null || !transaction.isNewTransaction() || transaction.isReadOnly()) {
            return;
        }
        Optional<ActiveLease> current = ActiveLease.current();
        if (current.isEmpty()) {
            return;
        }
        ActiveLease active = current.get();
        Optional<FencedWriteRefusedException> refusal = EndedTransactions.afterFailedRollback(active, rollbackFailure);
        if (refusal.isEmpty() && active.refusalAtCommit().isPresent()) {
            FencedWriteRefusedException atCommit = active.refusalAtCommit().get();
            FencedWriteRefusedException rethrown = new FencedWriteRefusedException(
                    atCommit.getMessage() + " (the rollback failed too: " + rollbackFailure.getMessage() + ")",
                    atCommit.refusal());
            rethrown.addSuppressed(rollbackFailure);
            refusal = Optional.of(rethrown);
        }
        if (refusal.isPresent()) {
            throw refusal.get();
        }
    }

    /**
     * Begins the fenced transaction on the transaction's connection ({@link FencedTransaction#begin}:
     * the lease check, the guard, the idle bound that lets the database end a stalled holder's
     * transaction), or, where fencing-jpa began it for the same lease on that connection, runs its
     * guard now if it still waits for the first statement.
     */
    private FencedTransaction enter(TransactionExecution transaction, Lease lease) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        LockedObservations.Step step = ActiveLease.current()
                .map(ActiveLease::observations)
                .orElse(LockedObservations.NONE)
                .start(LockedObservations.GUARD, lease.lockName())
                .highCardinality(LockedObservations.TOKEN, Long.toString(lease.token()));
        FencedTransaction fenced = null;
        try {
            Optional<FencedTransaction> jpa =
                    JpaBinding.PRESENT ? JpaBinding.fenceOf(connection, table, lease) : Optional.empty();
            if (jpa.isPresent()) {
                fenced = jpa.get();
                fenced.enterNow();
            } else {
                fenced = FencedTransaction.of(table, connection, lease);
                fenced.begin();
            }
            return fenced;
        } catch (FenceRefusedException refused) {
            throw abandon(transaction, observed(step, new FencedWriteRefusedException(refused)));
        } catch (SQLException failure) {
            FencedTransaction failed = fenced != null ? fenced : FencedTransaction.of(table, connection, lease);
            throw abandon(transaction, observed(step, translate(failed, connection, failure, lease)));
        } catch (RuntimeException failure) {
            // fencing-jpa's own guard, which on PostgreSQL waits for the connection's first use, fails here
            RuntimeException translated = concurrencyFailure(failure, lease.lockName())
                    .<RuntimeException>map(concurrency -> concurrency)
                    .orElse(failure);
            throw abandon(transaction, observed(step, translated));
        } finally {
            step.stop();
        }
    }

    private static RuntimeException observed(LockedObservations.Step step, RuntimeException failure) {
        step.error(failure);
        return failure;
    }

    /**
     * A refusal hidden behind the failure as {@link FencedWriteRefusedException}; a wait for the row
     * that ran out as {@link CannotAcquireLockException}; other concurrency failures (deadlock,
     * serialization failure) as {@link ConcurrencyFailureException}, so that retry policies keyed
     * on Spring's concurrency exceptions retry them; anything else as a resource failure.
     */
    private RuntimeException translate(
            FencedTransaction fenced, Connection connection, SQLException failure, Lease lease) {
        try {
            connection.rollback();
            Optional<LockException> explained = fenced.explain(failure);
            if (explained.isPresent() && explained.get() instanceof FenceRefusedException hidden) {
                return new FencedWriteRefusedException(hidden);
            }
            if (explained.isPresent() && explained.get() instanceof FenceRowBusyException busy) {
                return new CannotAcquireLockException(busy.getMessage(), busy);
            }
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
        String message = "The fence guard of lock '" + lease.lockName() + "' failed: " + failure.getMessage();
        return FencedTransaction.isConcurrencyFailure(failure)
                ? new ConcurrencyFailureException(message, failure)
                : new DataAccessResourceFailureException(message, failure);
    }

    /**
     * The guard of a transaction manager that runs it while beginning (fencing-jpa's, inside {@code
     * JpaTransactionManager}) fails the begin, which Spring wraps as {@code
     * CannotCreateTransactionException}; a wait for the fence row that ran out, or another
     * concurrency failure of the database, is rethrown as Spring's {@link CannotAcquireLockException}
     * or {@link ConcurrencyFailureException} instead, the original failure as its cause, so that
     * retry policies keyed on concurrency failures retry it. Empty for any other failure.
     */
    static Optional<ConcurrencyFailureException> concurrencyFailure(Throwable beginFailure, String lockName) {
        if (beginFailure instanceof ConcurrencyFailureException) {
            return Optional.empty();
        }
        for (Throwable t = beginFailure; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof FenceRowBusyException busy) {
                return Optional.of(new CannotAcquireLockException(busy.getMessage(), beginFailure));
            }
        }
        String message =
                "The fenced transaction of lock '" + lockName + "' could not begin: " + beginFailure.getMessage();
        if (FencedTransaction.isLockTimeout(beginFailure)) {
            return Optional.of(new CannotAcquireLockException(message, beginFailure));
        }
        if (FencedTransaction.isConcurrencyFailure(beginFailure)) {
            return Optional.of(new ConcurrencyFailureException(message, beginFailure));
        }
        return Optional.empty();
    }

    /** Rolls back the transaction that just began, so nothing stays bound to the thread, and returns {@code failure}. */
    private RuntimeException abandon(TransactionExecution transaction, RuntimeException failure) {
        try {
            transactionManager.rollback((TransactionStatus) transaction);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
        return failure;
    }
}
