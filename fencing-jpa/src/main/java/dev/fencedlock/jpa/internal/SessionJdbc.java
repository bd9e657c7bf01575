package dev.fencedlock.jpa.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.jdbc.AbstractReturningWork;

/**
 * Single statements of the fencing checks, run either on the session's own connection (inside its
 * transaction, through Hibernate's JDBC coordination so that they are logged and their failures
 * converted like Hibernate's own) or on a separate connection and transaction.
 */
final class SessionJdbc {
    private SessionJdbc() {}

    /** Binds the parameters of one statement. */
    @FunctionalInterface
    interface Parameters {
        void bind(PreparedStatement statement) throws SQLException;
    }

    /**
     * Runs an UPDATE in the session's transaction.
     *
     * @throws org.hibernate.JDBCException if the database refused it
     */
    static int update(SharedSessionContractImplementor session, String sql, Parameters parameters) {
        var jdbc = session.getJdbcCoordinator();
        PreparedStatement statement = jdbc.getStatementPreparer().prepareStatement(sql);
        try {
            bind(session, sql, statement, parameters);
            return jdbc.getResultSetReturn().executeUpdate(statement, sql);
        } finally {
            jdbc.getLogicalConnection().getResourceRegistry().release(statement);
            jdbc.afterStatementExecution();
        }
    }

    /**
     * Reads one {@code long} column in the session's transaction.
     *
     * @return the value of the first row, null if there is none
     * @throws org.hibernate.JDBCException if the database refused the query
     */
    static Long queryLong(SharedSessionContractImplementor session, String sql, Parameters parameters) {
        var jdbc = session.getJdbcCoordinator();
        PreparedStatement statement = jdbc.getStatementPreparer().prepareStatement(sql);
        var resources = jdbc.getLogicalConnection().getResourceRegistry();
        try {
            bind(session, sql, statement, parameters);
            ResultSet rows = jdbc.getResultSetReturn().extract(statement, sql);
            try {
                return rows.next() ? rows.getLong(1) : null;
            } catch (SQLException e) {
                throw session.getJdbcServices().getSqlExceptionHelper().convert(e, "could not read", sql);
            } finally {
                resources.release(rows, statement);
            }
        } finally {
            resources.release(statement);
            jdbc.afterStatementExecution();
        }
    }

    /**
     * Reads one {@code long} column on a separate connection, in a transaction of its own that is
     * committed at once. It sees what is committed now, whatever the isolation of the session's
     * transaction, and works after a failed statement has left that transaction unusable (a
     * PostgreSQL transaction accepts no statement after a failed one; a MariaDB deadlock rolls the
     * whole transaction back). A plain read: it waits for no lock.
     *
     * @return the value of the first row, null if there is none
     */
    static Long isolatedQueryLong(SharedSessionContractImplementor session, String sql, Parameters parameters) {
        return session.getTransactionCoordinator()
                .createIsolationDelegate()
                .delegateWork(
                        new AbstractReturningWork<Long>() {
                            @Override
                            public Long execute(Connection connection) throws SQLException {
                                try (PreparedStatement statement = connection.prepareStatement(sql)) {
                                    parameters.bind(statement);
                                    try (ResultSet rows = statement.executeQuery()) {
                                        return rows.next() ? rows.getLong(1) : null;
                                    }
                                }
                            }
                        },
                        true);
    }

    private static void bind(
            SharedSessionContractImplementor session, String sql, PreparedStatement statement, Parameters parameters) {
        try {
            parameters.bind(statement);
        } catch (SQLException e) {
            throw session.getJdbcServices().getSqlExceptionHelper().convert(e, "could not bind parameters", sql);
        }
    }
}
