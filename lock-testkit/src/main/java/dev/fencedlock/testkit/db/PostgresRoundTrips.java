package dev.fencedlock.testkit.db;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Counts the round trips pgjdbc makes on the calling thread: its {@code Sync} messages, one per
 * round trip of the extended protocol, read from the driver's own protocol log (java.util.logging,
 * {@code FINEST}). The log level is raised only while the action runs and put back afterwards.
 * Counts of actions run at the same time on other threads are kept apart by thread.
 */
public final class PostgresRoundTrips {
    private static final String PROTOCOL_LOGGER = "org.postgresql.core.v3.QueryExecutorImpl";

    private PostgresRoundTrips() {}

    /** An action that may throw. */
    @FunctionalInterface
    public interface Action {
        void run() throws Exception;
    }

    /** The {@code Sync} messages pgjdbc sends on this thread while {@code action} runs. */
    public static int of(Action action) throws Exception {
        Logger driver = Logger.getLogger(PROTOCOL_LOGGER);
        Level level = driver.getLevel();
        long thread = Thread.currentThread().getId();
        AtomicInteger syncs = new AtomicInteger();
        Handler counter = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLongThreadID() == thread
                        && record.getMessage() != null
                        && record.getMessage().contains("FE=> Sync")) {
                    syncs.incrementAndGet();
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        driver.setLevel(Level.FINEST);
        driver.addHandler(counter);
        try {
            action.run();
        } finally {
            driver.removeHandler(counter);
            driver.setLevel(level);
        }
        return syncs.get();
    }
}
