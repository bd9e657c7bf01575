package dev.fencedlock.jdbcprovider.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTimeoutException;
import java.util.concurrent.Executor;

/**
 * One borrowed connection and the time one attempt (or one extension, or one release) may take,
 * ending at a deadline on {@link System#nanoTime()}. Before each statement {@link #connection()}
 * sets the connection's network timeout to what is left, so no read outlives the deadline, and
 * the {@link LockTable} bounds the statement on the server from {@link #serverMillis()}. {@link
 * #close()} restores the connection's network timeout and auto-commit mode and hands it back.
 *
 * <p>Confined to one thread.
 */
final class Session implements AutoCloseable {
    private static final Executor DIRECT = Runnable::run;

    private final Connection connection;
    private final long deadlineNanos;
    private final boolean waitForRowLocks;
    private final boolean autoCommitWas;
    private final int networkTimeoutWas;
    private final long handedNanos = System.nanoTime();
    private boolean failed;
    private Long serverSessionId;

    /**
     * @param waitForRowLocks whether a statement may wait for a row another transaction locked
     *     (until the deadline); otherwise such a row fails the statement at once
     */
    Session(Connection connection, long deadlineNanos, boolean waitForRowLocks) throws SQLException {
        this.connection = connection;
        this.deadlineNanos = deadlineNanos;
        this.waitForRowLocks = waitForRowLocks;
        this.autoCommitWas = connection.getAutoCommit();
        if (!autoCommitWas) {
            connection.setAutoCommit(true);
        }
        this.networkTimeoutWas = networkTimeout(connection);
    }

    private static int networkTimeout(Connection connection) throws SQLException {
        try {
            return connection.getNetworkTimeout();
        } catch (SQLFeatureNotSupportedException e) {
            return -1; // an embedded database has no network to time out
        }
    }

    /**
     * The connection, with its network timeout set to the time left.
     *
     * @throws SQLTimeoutException if no time is left
     */
    Connection connection() throws SQLException {
        long left = leftMillis();
        if (left <= 0) {
            throw new SQLTimeoutException("the operation timeout ran out before the next statement");
        }
        if (networkTimeoutWas >= 0) {
            connection.setNetworkTimeout(DIRECT, (int) Math.min(Integer.MAX_VALUE, left));
        }
        return connection;
    }

    /** The connection as it is, for putting back a session setting after the time ran out. */
    Connection unboundedConnection() {
        return connection;
    }

    /** Whole milliseconds left until the deadline; zero or negative once it passed. */
    long leftMillis() {
        long leftNanos = deadlineNanos - System.nanoTime();
        return leftNanos <= 0 ? 0 : leftNanos / 1_000_000;
    }

    /**
     * How long the server may run the next statement: three quarters of what is left, at least 1
     * ms, so that the server gives up before the client's network timeout and a statement the
     * client stopped waiting for does not go on to change the row.
     */
    long serverMillis() {
        return Math.max(1, leftMillis() * 3 / 4);
    }

    /** Whether a statement may wait for a row lock held by another transaction. */
    boolean waitForRowLocks() {
        return waitForRowLocks;
    }

    /** Remembers the server session id ({@link LockTable#sessionId}) of this connection. */
    void serverSessionId(Long id) {
        this.serverSessionId = id;
    }

    /** A server session ({@link LockTable#sessionId}) and when its connection was handed to a caller. */
    record ServerSession(long id, long handedNanos) {
        /** Milliseconds since the connection was handed over: its session began at least that long ago. */
        long ageMillis() {
            return (System.nanoTime() - handedNanos) / 1_000_000;
        }
    }

    /** The server session remembered, if the connection is broken now: null otherwise. */
    ServerSession brokenServerSession() {
        if (serverSessionId == null) {
            return null;
        }
        try {
            return connection.isClosed() ? new ServerSession(serverSessionId, handedNanos) : null;
        } catch (SQLException e) {
            return new ServerSession(serverSessionId, handedNanos);
        }
    }

    /** Marks the connection as suspect: it is closed for good rather than kept for reuse. */
    void failed() {
        failed = true;
    }

    @Override
    public void close() throws SQLException {
        try {
            if (!connection.isClosed()) {
                if (networkTimeoutWas >= 0) {
                    connection.setNetworkTimeout(DIRECT, networkTimeoutWas);
                }
                if (!autoCommitWas) {
                    connection.setAutoCommit(false);
                }
            }
        } catch (SQLException e) {
            failed = true;
        } finally {
            if (failed) {
                DriverManagerDataSource.discard(connection);
            }
            connection.close();
        }
    }
}
