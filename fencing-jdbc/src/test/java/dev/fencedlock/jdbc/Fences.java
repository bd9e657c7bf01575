package dev.fencedlock.jdbc;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/** The fence's steps for a token no lease holds, as a receiver runs them: the tests' direct way to the guard. */
final class Fences {
    private Fences() {}

    /** Begins the fenced transaction of {@code token} on {@code connection} (autocommit off) in the standard table. */
    static FencedTransaction enter(Connection connection, String lockName, long token) throws SQLException {
        return enter(FenceTable.standard(), connection, lockName, token);
    }

    static FencedTransaction enter(FenceTable table, Connection connection, String lockName, long token)
            throws SQLException {
        FencedTransaction transaction = FencedTransaction.of(table, connection, lockName, token, null);
        transaction.begin();
        return transaction;
    }

    /** The refusal {@code failure} hides, read on {@code connection} after its rollback. */
    static Optional<FenceRefusedException> explain(
            Connection connection, SQLException failure, String lockName, long token) {
        return FencedTransaction.of(FenceTable.standard(), connection, lockName, token, null)
                .explain(failure)
                .filter(FenceRefusedException.class::isInstance)
                .map(FenceRefusedException.class::cast);
    }
}
