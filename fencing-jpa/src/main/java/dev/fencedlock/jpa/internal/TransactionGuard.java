package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.FenceGuard;
import dev.fencedlock.jdbc.StaleTokenException;
import dev.fencedlock.jpa.StaleFencingTokenException;
import jakarta.persistence.LockTimeoutException;
import jakarta.persistence.PersistenceException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import org.hibernate.engine.jdbc.spi.JdbcCoordinator;
import org.hibernate.resource.transaction.spi.TransactionCoordinator;
import org.hibernate.resource.transaction.spi.TransactionObserver;

/**
 * Runs the fence guard of the bound lease as the first statement of every transaction of one
 * Hibernate session, and checks the lease before the transaction commits. One per session's
 * transaction coordinator, registered by {@link GuardingTransactionCoordinatorBuilder}.
 *
 * <ol>
 *   <li>After begin (before Hibernate runs any statement of the transaction): if a lease is bound
 *       to the thread, {@link FenceGuard#enter} on the session's connection. From then on the
 *       transaction holds the lock's fence row, so the lock's transactions run one at a time in
 *       token order and every read of this one comes after the row lock. A refusal rolls the
 *       transaction back at once (releasing the row) and is thrown from {@code begin()} as {@link
 *       StaleFencingTokenException}. Without a lease bound the transaction is recorded as unfenced:
 *       writes to fenced tables in it are refused.
 *   <li>Before completion (after the commit's flush, before the JDBC commit): the lease must still
 *       be valid, else {@link StaleFencingTokenException} and Hibernate rolls back.
 *   <li>After completion: the transaction is forgotten.
 * </ol>
 *
 * <p>Used by the session's thread only, as the session itself.
 */
final class TransactionGuard implements TransactionObserver {
    private final TransactionCoordinator coordinator;
    private final JdbcCoordinator jdbc;
    private final FenceGuard guard;
    private FencedTransactions.Entry current;

    TransactionGuard(TransactionCoordinator coordinator, JdbcCoordinator jdbc, FenceGuard guard) {
        this.coordinator = coordinator;
        this.jdbc = jdbc;
        this.guard = guard;
    }

    @Override
    public void afterBegin() {
        Lease lease = LeaseBinding.current().orElse(null);
        current = FencedTransactions.begin(lease);
        if (lease == null) {
            return;
        }
        RuntimeException refusal;
        try {
            if (!lease.isValid()) {
                throw StaleFencingTokenException.leaseNotValid(lease, "when the transaction began");
            }
            enter(lease);
            return;
        } catch (RuntimeException e) {
            refusal = e;
        }
        try {
            coordinator.getTransactionDriverControl().rollback();
        } catch (RuntimeException rollbackFailure) {
            refusal.addSuppressed(rollbackFailure);
        } finally {
            // normally done by afterCompletion; also when the rollback failed before reaching it
            afterCompletion(false, false);
        }
        throw refusal;
    }

    private void enter(Lease lease) {
        Connection connection = jdbc.getLogicalConnection().getPhysicalConnection();
        try {
            guard.enter(connection, lease);
        } catch (StaleTokenException e) {
            throw StaleFencingTokenException.of(e);
        } catch (SQLException e) {
            throw explained(connection, e, lease);
        }
    }

    /** A concurrency failure of the guard that hides a refusal becomes the refusal. */
    private RuntimeException explained(Connection connection, SQLException failure, Lease lease) {
        try {
            connection.rollback();
        } catch (SQLException rollbackFailure) {
            failure.addSuppressed(rollbackFailure);
            return guardFailed(failure, lease);
        }
        Optional<RuntimeException> refusal = guard.explain(connection, failure, lease.lockName(), lease.token())
                .map(StaleFencingTokenException::of);
        if (refusal.isPresent()) {
            return refusal.get();
        }
        return guard.explainWait(connection, failure, lease.lockName(), lease.token(), null)
                .<RuntimeException>map(busy -> new LockTimeoutException(busy.getMessage(), busy))
                .orElseGet(() -> guardFailed(failure, lease));
    }

    private static PersistenceException guardFailed(SQLException failure, Lease lease) {
        return new PersistenceException(
                "The fence guard of lock '" + lease.lockName() + "' (token " + lease.token() + ") failed (SQLState "
                        + failure.getSQLState() + "); the transaction was rolled back: " + failure.getMessage(),
                failure);
    }

    @Override
    public void beforeCompletion() {
        Lease lease = current == null ? null : current.lease();
        if (lease != null && !lease.isValid()) {
            throw StaleFencingTokenException.leaseNotValid(lease, "at commit; the transaction is rolled back");
        }
    }

    @Override
    public void afterCompletion(boolean successful, boolean delayed) {
        if (current != null) {
            current.end();
            current = null;
        }
    }
}
