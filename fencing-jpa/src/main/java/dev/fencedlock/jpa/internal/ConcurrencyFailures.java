package dev.fencedlock.jpa.internal;

import java.sql.SQLException;
import org.hibernate.JDBCException;
import org.hibernate.PessimisticLockException;
import org.hibernate.exception.SnapshotIsolationException;
import org.hibernate.exception.TransactionSerializationException;

/**
 * Tells the database's concurrency failures (the statement lost a race with another transaction)
 * from other failures. A fenced statement that fails this way may have lost to a newer holder's
 * write; the coordinators then look the fence up and report a {@link
 * dev.fencedlock.jpa.StaleFencingTokenException} if it moved. Stateless.
 *
 * <p>Recognised: what Hibernate's dialects already classify as lock failures ({@link
 * PessimisticLockException} and its subclasses: deadlocks, lock-wait and lock timeouts), snapshot
 * and serialization failures, every SQLState of class {@code 40} (transaction rollback, including
 * {@code 40001} serialization failure, which PostgreSQL and H2 raise under REPEATABLE READ and
 * SERIALIZABLE, and MariaDB for a deadlock) and H2's {@code 90131} (concurrent update).
 */
final class ConcurrencyFailures {
    private static final String H2_CONCURRENT_UPDATE = "90131";

    private ConcurrencyFailures() {}

    static boolean isConcurrencyFailure(JDBCException failure) {
        if (failure instanceof PessimisticLockException
                || failure instanceof SnapshotIsolationException
                || failure instanceof TransactionSerializationException) {
            return true;
        }
        for (SQLException e = failure.getSQLException(); e != null; e = e.getNextException()) {
            String state = e.getSQLState();
            if (state != null && (state.startsWith("40") || state.equals(H2_CONCURRENT_UPDATE))) {
                return true;
            }
        }
        return false;
    }
}
