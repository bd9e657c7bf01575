package dev.fencedlock.jdbc;

import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.Schedules.Step;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A read-modify-write transaction on the counter row, run on its own thread one step at a time:
 * each {@link Step} waits until the schedule {@link #release releases} it. Fenced, it runs through
 * {@link JdbcFencing#inTransaction}; unfenced (the control), as a plain transaction with the same
 * statements and no guard.
 */
final class SteppedTransaction {
    /** Generous bound for anything that is not blocked: a hung test fails instead of waiting forever. */
    static final long STEP_BOUND_SECONDS = 60;

    private final Connection connection;
    private final Lease lease;
    private final boolean fenced;
    private final long counterId;
    private final Map<Step, CountDownLatch> gates = new EnumMap<>(Step.class);
    private final Thread thread;
    private int stepsDone;
    private boolean finished;
    private boolean committed;
    private Throwable failure;

    SteppedTransaction(Connection connection, Lease lease, boolean fenced, long counterId, String name) {
        this.connection = connection;
        this.lease = lease;
        this.fenced = fenced;
        this.counterId = counterId;
        for (Step step : Step.values()) {
            gates.put(step, new CountDownLatch(1));
        }
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Lets {@code step} run once the steps before it have. */
    void release(Step step) {
        gates.get(step).countDown();
    }

    /** Whether {@code step} has run, or the transaction ended before it could. */
    synchronized boolean passed(Step step) {
        return finished || stepsDone > step.ordinal();
    }

    /** Waits for {@code step} to have {@link #passed}, or for the bound to run out. */
    synchronized boolean awaitPassed(Step step, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!passed(step)) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** Waits for the transaction's end; false if it did not end within the bound. */
    boolean awaitEnd() throws InterruptedException {
        thread.join(TimeUnit.SECONDS.toMillis(STEP_BOUND_SECONDS));
        return !thread.isAlive();
    }

    synchronized boolean committed() {
        return committed;
    }

    /** What ended the transaction without a commit, null if it committed or has not ended. */
    synchronized Throwable failure() {
        return failure;
    }

    long token() {
        return lease.token();
    }

    private void run() {
        Throwable end = null;
        boolean commit = false;
        try {
            gate(Step.READ);
            if (fenced) {
                JdbcFencing.inTransaction(connection, lease, this::readModifyWrite);
            } else {
                connection.setAutoCommit(false);
                try {
                    readModifyWrite(connection);
                    connection.commit();
                } catch (SQLException | RuntimeException e) {
                    connection.rollback();
                    throw e;
                } finally {
                    connection.setAutoCommit(true);
                }
            }
            commit = true;
        } catch (Throwable t) {
            end = t;
        }
        synchronized (this) {
            committed = commit;
            failure = end;
            finished = true;
            stepsDone = Step.values().length;
            notifyAll();
        }
    }

    private Void readModifyWrite(Connection c) throws SQLException {
        long value;
        try (PreparedStatement read = c.prepareStatement("select counter_value from counter where id = ?")) {
            read.setLong(1, counterId);
            try (ResultSet rows = read.executeQuery()) {
                rows.next();
                value = rows.getLong(1);
            }
        }
        done(Step.READ);
        gate(Step.WRITE);
        try (PreparedStatement write =
                c.prepareStatement("update counter set counter_value = ?, last_writer = ? where id = ?")) {
            write.setLong(1, value + 1);
            write.setLong(2, lease.token());
            write.setLong(3, counterId);
            write.executeUpdate();
        }
        done(Step.WRITE);
        gate(Step.COMMIT);
        return null;
    }

    private void gate(Step step) {
        try {
            if (!gates.get(step).await(STEP_BOUND_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException(step + " was never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted before " + step, e);
        }
    }

    private synchronized void done(Step step) {
        stepsDone = step.ordinal() + 1;
        notifyAll();
    }
}
