package dev.fencedlock.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.jdbc.FenceTable;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The guard on an embedded H2 session whose fence row already holds the transaction's token: it
 * runs no statement (H2's own statement statistics count none), yet the transaction holds the row
 * exactly as after the update, so that another transaction of the lock waits for it, a rollback to
 * a savepoint before the guard frees the row and voids the mark, and a holder that waited while a
 * newer one raised the row is refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class H2FenceRowsTest {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static final String LOCK = "stock";

    @ParameterizedTest
    @MethodSource("dev.fencedlock.jdbc.internal.H2SessionMarksTest#identifierFoldings")
    void aTransactionOfTheTokenTheRowHoldsLocksTheRowWithoutAStatement(String settings) throws SQLException {
        String url = url(settings);
        try (Connection holder = open(url);
                Connection other = DriverManager.getConnection(url)) {
            H2Fence guard = new H2Fence(FenceTable.DEFAULT_NAME);
            execute(holder, "set query_statistics true");

            assertThat(guard.raiseIfNotAbove(holder, LOCK, 5, null)).isTrue();
            assertThat(guardUpdates(holder)).as("guard statements run").isZero();
            assertThat(H2SessionMarks.of(holder).orElseThrow().fencedOrBypassed(holder))
                    .as("the trigger's check of the mark")
                    .contains(true);
            assertThat(H2FenceTrigger.queryMarks(holder))
                    .as("the trigger's query agrees")
                    .isTrue();

            assertHeldAgainst(guard, other);
            other.rollback();

            holder.commit();
            assertThat(guard.raiseIfNotAbove(other, LOCK, 5, null))
                    .as("once the first ended")
                    .isTrue();
            other.rollback();
            assertThat(token(holder)).isEqualTo(5);

            assertThat(guard.raiseIfNotAbove(holder, LOCK, 6, null)).isTrue();
            assertThat(guardUpdates(holder)).as("a raise runs the update").isEqualTo(1);
            holder.commit();
            assertThat(token(holder)).isEqualTo(6);
        }
    }

    @Test
    void aRollbackToASavepointBeforeTheGuardFreesTheRowAndVoidsTheMark() throws SQLException {
        String url = url("");
        try (Connection holder = open(url);
                Connection other = DriverManager.getConnection(url)) {
            H2Fence guard = new H2Fence(FenceTable.DEFAULT_NAME);
            Savepoint beforeGuard = holder.setSavepoint();
            assertThat(guard.raiseIfNotAbove(holder, LOCK, 5, null)).isTrue();
            holder.rollback(beforeGuard);

            assertThat(H2SessionMarks.of(holder).orElseThrow().fencedOrBypassed(holder))
                    .as("the mark after the rollback to the savepoint")
                    .contains(false);
            other.setAutoCommit(false);
            execute(other, "set lock_timeout 100");
            assertThat(guard.raiseIfNotAbove(other, LOCK, 5, null))
                    .as("another transaction takes the row at once")
                    .isTrue();
            other.rollback();
            holder.rollback();
        }
    }

    /**
     * The row is found again after it was deleted and inserted anew under another row key, which
     * the remembered key no longer names: the guard still locks it, the trigger's check still sees
     * it held, and another lock's row is its own.
     */
    @Test
    void aFenceRowInsertedAnewIsFoundUnderItsNewKey() throws SQLException {
        String url = url("");
        try (Connection holder = open(url);
                Connection other = DriverManager.getConnection(url)) {
            H2Fence guard = new H2Fence(FenceTable.DEFAULT_NAME);
            assertThat(guard.raiseIfNotAbove(holder, LOCK, 5, null)).isTrue();
            holder.commit();
            execute(holder, "delete from fencedlock_fence where lock_name = '" + LOCK + "'");
            execute(holder, "insert into fencedlock_fence values ('other', 5)");
            execute(holder, "insert into fencedlock_fence values ('" + LOCK + "', 5)");
            holder.commit();

            assertThat(guard.raiseIfNotAbove(holder, LOCK, 5, null)).isTrue();
            assertThat(H2SessionMarks.of(holder).orElseThrow().fencedOrBypassed(holder))
                    .as("the trigger's check of the mark")
                    .contains(true);
            assertHeldAgainst(guard, other);
            assertThat(guard.raiseIfNotAbove(other, "other", 5, null))
                    .as("the other lock's row")
                    .isTrue();
            other.rollback();
            holder.rollback();
        }
    }

    /**
     * The holder reads its own token in the row, then waits for a newer holder that raised the row
     * meanwhile: the lock it is granted shows the newer token, so it is refused.
     */
    @Test
    void aHolderWhoseTokenWasRaisedWhileItWaitedIsRefused() throws Exception {
        String url = url("");
        try (Connection newer = open(url);
                Connection older = DriverManager.getConnection(url);
                Connection observer = DriverManager.getConnection(url)) {
            FencedTransaction.of(FenceTable.standard(), newer, LOCK, 6, null).begin();
            older.setAutoCommit(false);
            long olderSession = sessionId(older);
            CompletableFuture<Void> attempt = CompletableFuture.runAsync(() -> {
                try {
                    FencedTransaction.of(FenceTable.standard(), older, LOCK, 5, null)
                            .begin();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            while (!isBlocked(observer, olderSession) && !attempt.isDone()) {
                Thread.sleep(10);
            }
            assertThat(attempt)
                    .as("the older holder waits for the newer one's row")
                    .isNotDone();
            newer.commit();

            assertThatThrownBy(() -> attempt.get(30, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOfSatisfying(
                            FenceRefusedException.class,
                            e -> assertThat(e.newerToken()).hasValue(6));
            older.rollback();
            assertThat(token(observer)).isEqualTo(6);
        }
    }

    /** {@code other}'s guard of the same token cannot take the row: it times out after 100 ms. */
    private static void assertHeldAgainst(H2Fence guard, Connection other) throws SQLException {
        other.setAutoCommit(false);
        execute(other, "set lock_timeout 100");
        assertThatThrownBy(() -> guard.raiseIfNotAbove(other, LOCK, 5, null))
                .as("another transaction of the lock, while the first holds the row")
                .isInstanceOfSatisfying(
                        SQLException.class,
                        e -> assertThat(ConcurrencyFailures.isLockTimeout(e)).isTrue());
    }

    private static String url(String settings) {
        return "jdbc:h2:mem:rows" + DATABASES.incrementAndGet() + ";LOCK_TIMEOUT=10000" + settings;
    }

    /** A connection with a fresh fence table whose row of {@link #LOCK} holds 5, autocommit off. */
    private static Connection open(String url) throws SQLException {
        Connection connection = DriverManager.getConnection(url);
        execute(
                connection,
                "create table fencedlock_fence (lock_name varchar(256) primary key, token bigint not null)");
        execute(connection, "insert into fencedlock_fence values ('" + LOCK + "', 5)");
        connection.setAutoCommit(false);
        return connection;
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** How often a statement that updates the fence table ran, by H2's statement statistics. */
    private static long guardUpdates(Connection connection) throws SQLException {
        return queryLong(
                connection,
                "SELECT COALESCE(SUM(EXECUTION_COUNT), 0) FROM INFORMATION_SCHEMA.QUERY_STATISTICS"
                        + " WHERE LOWER(SQL_STATEMENT) LIKE 'update fencedlock_fence%'");
    }

    private static long token(Connection connection) throws SQLException {
        return queryLong(connection, "select token from fencedlock_fence where lock_name = '" + LOCK + "'");
    }

    private static long sessionId(Connection connection) throws SQLException {
        return queryLong(connection, "select session_id()");
    }

    private static boolean isBlocked(Connection observer, long session) throws SQLException {
        try (PreparedStatement statement = observer.prepareStatement(
                "select count(*) from information_schema.sessions where session_id = ? and blocker_id is not null")) {
            statement.setLong(1, session);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() && rows.getLong(1) > 0;
            }
        }
    }

    private static long queryLong(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
