package dev.fencedlock.jdbcprovider.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Borrows connections from the data source within a deadline. {@link DataSource#getConnection()}
 * takes no timeout, and a pool waits as long as its own borrow timeout says (HikariCP: 30 s by
 * default, and up to its validation timeout on a connection that stopped answering), so the borrow
 * runs on a helper thread and the caller stops waiting at the deadline; a connection that arrives
 * later is closed at once. A connection kept idle by {@link DriverManagerDataSource} is taken
 * directly. Thread-safe.
 */
final class Connections {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ExecutorService BORROWERS = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "fencedlock-jdbc-borrow-" + THREADS.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });

    private final DataSource dataSource;

    Connections(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    DataSource dataSource() {
        return dataSource;
    }

    /**
     * A session on a connection borrowed before {@code deadlineNanos} ({@link System#nanoTime()}).
     *
     * @throws SQLTimeoutException if no connection came by the deadline
     * @throws SQLException if the data source failed, or the thread was interrupted (its interrupt
     *     flag is then set again)
     */
    Session open(long deadlineNanos, boolean waitForRowLocks) throws SQLException {
        Connection connection = borrow(deadlineNanos);
        try {
            return new Session(connection, deadlineNanos, waitForRowLocks);
        } catch (SQLException | RuntimeException e) {
            DriverManagerDataSource.discard(connection);
            connection.close();
            throw e;
        }
    }

    private Connection borrow(long deadlineNanos) throws SQLException {
        if (dataSource instanceof DriverManagerDataSource direct) {
            Connection idle = direct.idleConnection();
            if (idle != null) {
                return idle;
            }
        }
        CompletableFuture<Connection> borrowed = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return dataSource.getConnection();
                    } catch (SQLException e) {
                        throw new CompletionException(e);
                    }
                },
                BORROWERS);
        long waitNanos = deadlineNanos - System.nanoTime();
        try {
            return borrowed.get(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            borrowed.thenAccept(Connections::closeQuietly);
            throw new SQLTimeoutException("no connection from the data source within "
                    + TimeUnit.NANOSECONDS.toMillis(Math.max(0, waitNanos)) + " ms");
        } catch (InterruptedException e) {
            borrowed.thenAccept(Connections::closeQuietly);
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while borrowing a connection", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException sql) {
                throw sql;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new SQLException("borrowing a connection failed", cause);
        }
    }

    /** Runs {@code task} on one of the helper threads, for work nobody waits for. */
    static void background(Runnable task) {
        BORROWERS.execute(task);
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            // nobody waits for it any more
        }
    }
}
