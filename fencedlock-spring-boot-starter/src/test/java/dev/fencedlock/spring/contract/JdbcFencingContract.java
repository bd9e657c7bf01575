package dev.fencedlock.spring.contract;

import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.JdbcFencing;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** The contract through {@link JdbcFencing#inTransaction(DataSource, Lease, dev.fencedlock.jdbc.SqlWork)}. */
abstract class JdbcFencingContract extends FencedTransactionContract {
    private DataSource dataSource;

    /**
     * The guard is a round trip of its own, and the commit puts the session back and switches
     * autocommit on in one: as many as unfenced.
     */
    @Override
    protected int extraRoundTripsOnMariaDb() {
        return 0;
    }

    @Override
    protected void openAdapter(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    protected void closeAdapter() {}

    @Override
    protected <T> T fenced(Lease lease, Body<T> body) throws Exception {
        return JdbcFencing.inTransaction(dataSource, lease, connection -> {
            try {
                return body.run(jdbc(connection));
            } catch (SQLException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Override
    protected <T> T unfenced(Body<T> body) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                T result = body.run(jdbc(connection));
                connection.commit();
                return result;
            } catch (Exception e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        }
    }
}
