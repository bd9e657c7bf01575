package dev.fencedlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The statements of one fenced transaction, run by {@link JdbcFencing#inTransaction}. The work
 * runs inside the transaction on the connection it is given: it must not commit, roll back or
 * switch autocommit on (the fence holds only until the transaction ends), and it may run any
 * number of statements on the connection, through plain JDBC or a library that wraps the
 * connection (a {@code JdbcTemplate} on a single-connection data source, jOOQ's {@code
 * DSL.using(connection)}).
 *
 * @param <T> what the work returns; {@code inTransaction} returns it after the commit
 */
@FunctionalInterface
public interface SqlWork<T> {

    /**
     * Runs the statements. Throwing anything rolls the transaction back and propagates.
     *
     * @param connection the transaction's connection, autocommit off, the guard already run or (on
     *     PostgreSQL through pgjdbc) sent in one round trip with the first statement the work
     *     executes, which then runs only if the guard let it: a refusal is thrown from that
     *     statement's execution, and code of the work before it has run (see {@link JdbcFencing})
     */
    T run(Connection connection) throws SQLException;
}
