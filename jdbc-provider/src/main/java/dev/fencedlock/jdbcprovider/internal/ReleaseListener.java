package dev.fencedlock.jdbcprovider.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On PostgreSQL: one thread that holds a connection of its own, {@code LISTEN}s on the lock
 * table's channel and turns each release {@code NOTIFY} into a {@link ReleaseSignals} wake-up.
 *
 * <p>When the connection breaks, the thread opens a new one after a pause and wakes every waiter
 * once it listens again, since releases in between went unheard. Meanwhile waiters fall back to
 * polling. Thread-safe; {@link #close()} stops the thread within about a second.
 */
final class ReleaseListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReleaseListener.class);
    private static final int POLL_MILLIS = 500;
    private static final long RECONNECT_PAUSE_MILLIS = 1_000;

    private final DataSource dataSource;
    private final LockTable table;
    private final ReleaseSignals signals;
    private final Thread thread;
    private volatile boolean closed;
    private volatile boolean listening;

    private ReleaseListener(DataSource dataSource, LockTable table, ReleaseSignals signals) {
        this.dataSource = dataSource;
        this.table = table;
        this.signals = signals;
        this.thread = new Thread(this::run, "fencedlock-jdbc-listen-" + table.channel());
        this.thread.setDaemon(true);
    }

    /** Starts listening in the background. */
    static ReleaseListener start(DataSource dataSource, LockTable table, ReleaseSignals signals) {
        ReleaseListener listener = new ReleaseListener(dataSource, table, signals);
        listener.thread.start();
        return listener;
    }

    /** Whether the thread is currently listening, so that waiters may rely on wake-ups. */
    boolean listening() {
        return listening;
    }

    private void run() {
        while (!closed) {
            try (Connection connection = dataSource.getConnection()) {
                // a listening connection must not be reused for anything else
                DriverManagerDataSource.discard(connection);
                connection.setAutoCommit(true);
                PGConnection postgres = connection.unwrap(PGConnection.class);
                try (Statement listen = connection.createStatement()) {
                    listen.execute("LISTEN \"" + table.channel() + "\"");
                }
                // releases before LISTEN went unheard: everyone re-checks, then may rely on wake-ups
                signals.signalAll();
                listening = true;
                while (!closed) {
                    PGNotification[] notifications = postgres.getNotifications(POLL_MILLIS);
                    if (notifications != null) {
                        for (PGNotification notification : notifications) {
                            signals.signal(LockTable.signalKey(table.table(), notification.getParameter()));
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!closed) {
                    log.debug("LISTEN on {} failed, waiters poll until it is back: {}", table.channel(), e.toString());
                }
            } finally {
                listening = false;
            }
            pause();
        }
    }

    private void pause() {
        try {
            Thread.sleep(closed ? 0 : RECONNECT_PAUSE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
