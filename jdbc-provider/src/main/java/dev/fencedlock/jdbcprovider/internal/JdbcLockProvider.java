package dev.fencedlock.jdbcprovider.internal;

import dev.fencedlock.FencedLock;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The jdbc backend's provider: the lock table on one data source, and on PostgreSQL the thread
 * that listens for releases. Thread-safe.
 */
public final class JdbcLockProvider implements LockProvider {
    private final LeaseRuntime runtime;
    private final LockTable table;
    private final String node;
    private final long pollIntervalNanos;
    private ReleaseListener listener; // guarded by this
    private boolean closed; // guarded by this

    /**
     * @param node how failures name the database, without credentials
     * @throws IllegalArgumentException if the database answers and is not H2, PostgreSQL or MariaDB
     */
    public JdbcLockProvider(
            LeaseRuntime runtime,
            DataSource dataSource,
            String table,
            String node,
            Duration pollInterval,
            Duration operationTimeout) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.table = new LockTable(dataSource, table, operationTimeout);
        this.node = node;
        this.pollIntervalNanos = pollInterval.toNanos();
        try {
            this.table.dialect();
        } catch (SQLException e) {
            // the database is down now; the dialect is found at the first statement
        }
    }

    @Override
    public FencedLock lock(String name) {
        return new JdbcFencedLock(name, runtime, this);
    }

    LockTable table() {
        return table;
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
        if (listener == null
                && !closed
                && table.knownDialect().filter(Dialect::notifies).isPresent()) {
            listener = ReleaseListener.start(table, signals());
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
