package dev.fencedlock.jdbcprovider.internal;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.FencedLock;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jdbc backend's provider: the lock table on one data source, and on PostgreSQL the thread
 * that listens for releases. Every call on the table borrows a connection and runs its statements
 * within one operation timeout ({@link #call}). Thread-safe.
 */
final class JdbcLockProvider implements LockProvider {
    private static final Logger log = LoggerFactory.getLogger(JdbcLockProvider.class);

    private final LeaseRuntime runtime;
    private final Connections connections;
    private final String tableName;
    private final String node;
    private final long pollIntervalNanos;
    private final long operationTimeoutNanos;
    private volatile LockTable table; // found from the first connection that answers
    private ReleaseListener listener; // guarded by this
    private boolean closed; // guarded by this

    /**
     * Looks at the database once, within the operation timeout.
     *
     * @param node how failures name the database, without credentials
     * @throws IllegalArgumentException if the database answers and is not H2, PostgreSQL or MariaDB
     */
    JdbcLockProvider(
            LeaseRuntime runtime,
            DataSource dataSource,
            String table,
            String node,
            Duration pollInterval,
            Duration operationTimeout) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.connections = new Connections(Objects.requireNonNull(dataSource, "dataSource"));
        this.tableName = Objects.requireNonNull(table, "table");
        this.node = node;
        this.pollIntervalNanos = pollInterval.toNanos();
        this.operationTimeoutNanos = operationTimeout.toNanos();
        try {
            call(false, (lockTable, session) -> null);
        } catch (SQLException e) {
            // the database is down now; the table's database is found at the first statement
        }
    }

    @Override
    public FencedLock lock(String name) {
        return new JdbcFencedLock(name, runtime, this);
    }

    /**
     * Checks the database and the lock table within one operation timeout, as a grant attempt
     * would reach them: borrows a connection, reads the database's product and version from the
     * driver's metadata and runs a query on the lock table that reads no row ({@link
     * LockTable#probe}) and takes no lock, bounded on the server like every statement. One node,
     * the database: {@code ANSWERING} with the product and "lock table ... usable" in the detail
     * ({@code UP}); {@code FAILING} ({@code DOWN}) when no connection came or the database did not
     * answer in time (the detail says "database not reached" and why), or when the table is
     * missing, lacks a column or may not be read (the detail names the product and the database's
     * error). Never throws.
     */
    @Override
    public BackendStatus status(String backend) {
        Check check;
        try {
            check = call(false, (lockTable, session) -> {
                DatabaseMetaData meta = session.connection().getMetaData();
                String product = meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion();
                try {
                    lockTable.probe(session);
                    return new Check(product, null);
                } catch (SQLException e) {
                    if (!JdbcFencedLock.isSchemaError(e)) {
                        throw e;
                    }
                    return new Check(product, e);
                }
            });
        } catch (SQLException | RuntimeException e) {
            return databaseStatus(backend, BackendStatus.NodeState.FAILING, "database not reached: " + e);
        }
        if (check.tableFailure() != null) {
            return databaseStatus(
                    backend,
                    BackendStatus.NodeState.FAILING,
                    check.product() + "; lock table " + tableName + " not usable: " + check.tableFailure());
        }
        return databaseStatus(
                backend, BackendStatus.NodeState.ANSWERING, check.product() + "; lock table " + tableName + " usable");
    }

    /** What {@link #status} found on a database that answered. */
    private record Check(String product, SQLException tableFailure) {}

    private BackendStatus databaseStatus(String backend, BackendStatus.NodeState state, String detail) {
        return new BackendStatus(
                backend,
                state == BackendStatus.NodeState.ANSWERING ? BackendStatus.State.UP : BackendStatus.State.DOWN,
                List.of(new BackendStatus.Node(node, state, detail)));
    }

    /** Work on the lock table in one session. */
    interface TableCall<T> {
        T run(LockTable table, Session session) throws SQLException;
    }

    /**
     * Runs {@code work} on a connection borrowed for it, all within one operation timeout from now:
     * the borrow, each statement's network timeout and each statement's bound on the server.
     *
     * @param waitForRowLocks whether a statement may wait for a row another transaction holds locked
     * @throws SQLException if the database failed or did not answer in time
     */
    <T> T call(boolean waitForRowLocks, TableCall<T> work) throws SQLException {
        return call(waitForRowLocks, work, null);
    }

    private <T> T call(boolean waitForRowLocks, TableCall<T> work, Consumer<Session> ifUnanswered) throws SQLException {
        try (Session session = connections.open(System.nanoTime() + operationTimeoutNanos, waitForRowLocks)) {
            try {
                LockTable known = table;
                if (known == null) {
                    known = LockTable.of(session.connection(), tableName);
                    table = known;
                }
                return work.run(known, session);
            } catch (SQLException | RuntimeException e) {
                session.failed();
                if (ifUnanswered != null && e instanceof SQLException sql && unanswered(sql)) {
                    ifUnanswered.accept(session);
                }
                throw e;
            }
        }
    }

    /** Whether a statement may have reached the database without its answer reaching the client. */
    private static boolean unanswered(SQLException e) {
        return e instanceof SQLTimeoutException
                || (e.getSQLState() != null && e.getSQLState().startsWith("08"));
    }

    /**
     * One grant attempt ({@link LockTable#tryGrant}) within one operation timeout. If a statement
     * was sent and no answer came back, the grant may have landed with nobody to hold it: {@link
     * #clearAbandoned} clears it.
     */
    LockTable.Attempt tryGrant(String key, String lockName, String holder, long leaseMillis) throws SQLException {
        return call(
                false,
                (lockTable, session) -> {
                    session.serverSessionId(lockTable.sessionId(session));
                    return lockTable.tryGrant(session, key, lockName, holder, leaseMillis);
                },
                session -> clearAbandoned(key, holder, leaseMillis, session.brokenServerSession()));
    }

    /**
     * After an attempt that sent a statement and got no answer: clears {@code holder}'s grant in the
     * background, in case the statement reached the database and only its reply was lost or late.
     * If the attempt's connection broke, its server session ({@code serverSession}, null if
     * unknown) is ended first, so that a grant still on its way (held up in a partition) can never
     * run after the release.
     * No lease carries that holder value, so nobody loses anything; without this the lock would
     * stay granted to nobody for a whole lease. Best effort: the release is retried, with pauses
     * growing from 250 ms to 5 s, until it is answered or the grant would have expired anyway;
     * failures are logged at DEBUG.
     */
    private void clearAbandoned(String key, String holder, long leaseMillis, Session.ServerSession serverSession) {
        long giveUpAt = System.nanoTime() + leaseMillis * 1_000_000L;
        Connections.background(() -> {
            long pauseMillis = 250;
            while (true) {
                try {
                    call(true, (lockTable, session) -> {
                        if (serverSession != null) {
                            try {
                                lockTable.endSession(session, serverSession);
                            } catch (SQLException e) {
                                if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
                                    throw e;
                                }
                                log.debug(
                                        "Could not end session {} of an abandoned grant: {}",
                                        serverSession,
                                        e.toString());
                            }
                        }
                        return lockTable.release(session, key, holder);
                    });
                    return;
                } catch (SQLException | RuntimeException e) {
                    log.debug("Could not clear a possibly abandoned grant in {} yet: {}", tableName, e.toString());
                }
                if (System.nanoTime() + pauseMillis * 1_000_000L - giveUpAt >= 0) {
                    return;
                }
                try {
                    Thread.sleep(pauseMillis);
                } catch (InterruptedException e) {
                    return;
                }
                pauseMillis = Math.min(pauseMillis * 2, 5_000);
            }
        });
    }

    /** The lock table's name, as configured. */
    String tableName() {
        return tableName;
    }

    /** The {@link ReleaseSignals} key of a lock key in this table. */
    String signalKey(String key) {
        return LockTable.signalKey(tableName, key);
    }

    ReleaseSignals signals() {
        return ReleaseSignals.SHARED;
    }

    String node() {
        return node;
    }

    long pollIntervalNanos() {
        return pollIntervalNanos;
    }

    /** Whether releases anywhere wake this client's waiters right now. */
    synchronized boolean notified() {
        LockTable known = table;
        if (listener == null && !closed && known != null && known.notifies()) {
            listener = ReleaseListener.start(connections.dataSource(), known, signals());
        }
        return listener != null && listener.listening();
    }

    @Override
    public void close() {
        ReleaseListener toClose;
        synchronized (this) {
            closed = true;
            toClose = listener;
        }
        if (toClose != null) {
            toClose.close();
        }
    }
}
