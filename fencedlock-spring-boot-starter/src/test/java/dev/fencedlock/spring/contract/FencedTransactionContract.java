package dev.fencedlock.spring.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.jdbc.FencedTables;
import dev.fencedlock.testkit.db.MariaDbRoundTrips;
import dev.fencedlock.testkit.db.PostgresRoundTrips;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.db.TestDatabase.Kind;
import dev.fencedlock.testkit.local.LocalLockFaults;
import java.lang.reflect.UndeclaredThrowableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The fenced-transaction contract: what every way of running a transaction under a lease gives,
 * whichever adapter runs it ({@code JdbcFencing}, fencing-jpa, the Spring starter) and on every
 * database. A subclass per adapter says how a transaction is run ({@link #fenced}, {@link
 * #unfenced}); a tiny subclass of that per database says which database ({@link #kind()}).
 *
 * <p>Leases come from the in-process {@code local} backend, whose faults ({@link LocalLockFaults})
 * make a holder stale (its grant forgotten while it still believes it holds the lock) or expire its
 * lease at once; no test waits for time to pass. Every case writes rows of its own and locks of its
 * own, so the cases are independent.
 *
 * <p>The bodies write through the adapter's own data access ({@link Tx}): plain JDBC, native SQL
 * through the {@code EntityManager}, {@code JdbcTemplate}. {@value #ITEMS} is a protected table
 * ({@link FencedTables#protect}); {@value #NOTES} is not.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
public abstract class FencedTransactionContract {
    static final String ITEMS = "contract_item";
    static final String NOTES = "contract_note";
    private static final int ROWS = 64;
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** Fixed, never renewed: a renewal would notice a forgotten grant and end the stale holder's belief early. */
    private static final Duration LEASE = Duration.ofSeconds(60);

    private static final AtomicLong NAMES = new AtomicLong();
    private final AtomicLong rows = new AtomicLong();

    private TestDatabase db;
    private StatementLog statements;
    private LockClient client;
    private ExecutorService executor;

    /** The database this subclass runs on. */
    protected abstract Kind kind();

    /**
     * Prepares the adapter on {@code dataSource}, a pool on the test's schema that already holds
     * the fence table and the test tables. Every transaction of the adapter must take its
     * connections from it.
     */
    protected abstract void openAdapter(DataSource dataSource) throws Exception;

    /** Releases what {@link #openAdapter} opened. */
    protected abstract void closeAdapter() throws Exception;

    /** Runs {@code body} in a transaction fenced by {@code lease}, the adapter's way; commits it. */
    protected abstract <T> T fenced(Lease lease, Body<T> body) throws Exception;

    /** Runs {@code body} in a plain transaction of the adapter, under no lease; commits it. */
    protected abstract <T> T unfenced(Body<T> body) throws Exception;

    /**
     * Whether the adapter sends the guard on PostgreSQL in one round trip with the transaction's
     * first statement; false where the guard runs at begin as a round trip of its own, so that a
     * refusal comes before the body runs.
     */
    protected boolean pipelinesTheGuard() {
        return true;
    }

    /**
     * How many more round trips than the same transaction unfenced a fenced one makes on MariaDB
     * through the driver's defaults (no {@code allowMultiQueries}, so the guard is a statement of
     * its own): the guard, and the statement that puts the session back after the commit where the
     * adapter does not commit through the fence ({@code FencedTransaction.commit}).
     */
    protected abstract int extraRoundTripsOnMariaDb();

    /** What a transaction's body may do, through the adapter's own data access. */
    public interface Tx {
        int update(String sql, long... parameters) throws Exception;

        long queryLong(String sql, long... parameters) throws Exception;
    }

    /** A transaction's body. */
    @FunctionalInterface
    public interface Body<T> {
        T run(Tx tx) throws Exception;
    }

    @BeforeAll
    void openDatabase() throws Exception {
        db = TestDatabase.create(kind(), "fc", 6).migrate("classpath:db/fencedlock/migration");
        db.execute("create table " + ITEMS
                + " (id bigint not null primary key, item_value bigint not null, writer_token bigint not null)");
        db.execute("create table " + NOTES + " (id bigint not null primary key, note_value bigint not null)");
        for (int id = 1; id <= ROWS; id++) {
            db.execute("insert into " + ITEMS + " values (?, 0, 0)", id);
            db.execute("insert into " + NOTES + " values (?, 0)", id);
        }
        FencedTables.protect(db.dataSource(), ITEMS);
        statements = new StatementLog();
        client = LockClient.create(LockConfig.builder().backend("local").build());
        executor = Executors.newCachedThreadPool();
        openAdapter(kind() == Kind.POSTGRESQL ? db.dataSource() : statements.wrap(db.dataSource()));
    }

    @AfterAll
    void closeDatabase() throws Exception {
        try {
            closeAdapter();
        } finally {
            executor.shutdownNow();
            client.close();
            db.close();
        }
    }

    @Test
    void aStaleHoldersWriteIsRefusedAndTheNewerHoldersWriteIsKept() throws Exception {
        String name = lockName("stale");
        long id = row();
        Lease older = acquire(name);
        LocalLockFaults.loseLease(name);
        Lease newer = acquire(name);
        assertThat(newer.token()).as("the newer holder's token").isGreaterThan(older.token());
        assertThat(older.isValid())
                .as("the stale holder still believes it holds the lock")
                .isTrue();

        fenced(newer, tx -> write(tx, id, 2, newer));
        Throwable refused = catchThrowable(() -> fenced(older, tx -> write(tx, id, 1, older)));

        Refusal refusal = refusalIn(refused);
        assertThat(refusal.lockName()).isEqualTo(name);
        assertThat(refusal.token()).isEqualTo(older.token());
        assertThat(refusal.newerToken()).hasValue(newer.token());
        assertThat(itemValue(id)).as("the newer holder's write").isEqualTo(2);
        assertThat(writerToken(id)).isEqualTo(newer.token());
        assertThat(fenceToken(name)).as("the fence row keeps the newer token").isEqualTo(newer.token());
    }

    @Test
    void aWriteToAProtectedTableOutsideAFencedTransactionIsRefusedByTheDatabase() throws Exception {
        long id = row();

        Throwable refused = catchThrowable(
                () -> unfenced(tx -> tx.update("update " + ITEMS + " set item_value = 7 where id = ?", id)));

        SQLException database = sqlExceptionIn(refused);
        assertThat(database.getMessage().toLowerCase(Locale.ROOT))
                .as("the database names the table")
                .contains(ITEMS);
        assertThat(itemValue(id)).isZero();
        int updated = unfenced(tx -> tx.update("update " + NOTES + " set note_value = 7 where id = ?", id));
        assertThat(updated).as("an unprotected table takes the same write").isEqualTo(1);
    }

    @Test
    void aHolderStalledPastItsLeaseInsideItsTransactionKeepsNothingAndTheNextHoldersWriteIsKept() throws Exception {
        String name = lockName("stalled");
        long id = row();
        Lease stalled = acquire(name);
        AtomicReference<Lease> next = new AtomicReference<>();
        AtomicReference<Future<Integer>> nextWrite = new AtomicReference<>();

        Throwable thrown = catchThrowable(() -> fenced(stalled, tx -> {
            write(tx, id, 1, stalled);
            // the holder stalls here past its lease; the next holder takes the lock and writes
            // while this transaction is still open
            LocalLockFaults.expireLease(name);
            next.set(acquire(name));
            nextWrite.set(executor.submit(() -> fenced(next.get(), tx2 -> write(tx2, id, 2, next.get()))));
            return 0;
        }));

        assertThat(thrown).as("the stalled holder's transaction fails").isNotNull();
        assertThat(nextWrite.get().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(itemValue(id)).as("the next holder's write").isEqualTo(2);
        assertThat(writerToken(id)).isEqualTo(next.get().token());
        assertThat(fenceToken(name)).isEqualTo(next.get().token());
    }

    /**
     * PostgreSQL: where the adapter pipelines the guard, it travels with the transaction's first
     * statement, so a fenced transaction makes as many round trips as the same transaction
     * unfenced (read, write, commit); where it does not, exactly one more. MariaDB: as many more
     * as {@link #extraRoundTripsOnMariaDb} says. H2 and MariaDB: the guard is sent before the
     * body's first write.
     */
    @Test
    void theGuardRidesWithTheFirstStatementOnPostgresqlAndPrecedesTheFirstWriteElsewhere() throws Exception {
        String name = lockName("guard");
        long id = row();
        Lease lease = acquire(name);
        if (kind() != Kind.H2) {
            // a lock's first fenced transaction runs the guard alone; the next ones pipeline it
            fenced(lease, tx -> readModifyWrite(tx, id));
            fenced(lease, tx -> readModifyWrite(tx, id));
            unfenced(tx -> readModifyWrite(tx, id));
        }
        if (kind() == Kind.POSTGRESQL) {
            int fencedTrips = PostgresRoundTrips.of(() -> fenced(lease, tx -> readModifyWrite(tx, id)));
            int unfencedTrips = PostgresRoundTrips.of(() -> unfenced(tx -> readModifyWrite(tx, id)));

            assertThat(unfencedTrips).as("read, write, commit").isEqualTo(3);
            assertThat(fencedTrips)
                    .as("round trips of the fenced transaction")
                    .isEqualTo(unfencedTrips + (pipelinesTheGuard() ? 0 : 1));
        } else {
            if (kind() == Kind.MARIADB) {
                int fencedTrips = MariaDbRoundTrips.of(() -> fenced(lease, tx -> readModifyWrite(tx, id)));
                int unfencedTrips = MariaDbRoundTrips.of(() -> unfenced(tx -> readModifyWrite(tx, id)));

                assertThat(unfencedTrips)
                        .as("autocommit off, read, write, commit, autocommit on")
                        .isEqualTo(5);
                assertThat(fencedTrips)
                        .as("round trips of the fenced transaction")
                        .isEqualTo(unfencedTrips + extraRoundTripsOnMariaDb());
            }
            List<String> sent = statements.record(() -> fenced(lease, tx -> write(tx, id, 3, lease)));

            int guard = indexOf(sent, sql -> sql.contains("fencedlock_fence"));
            int firstWrite = indexOf(
                    sent, sql -> sql.matches("(?s)\\s*(insert|update|delete|merge)\\b.*") && sql.contains(ITEMS));
            assertThat(guard).as("the guard was sent: %s", sent).isNotNegative();
            assertThat(firstWrite).as("the write was sent: %s", sent).isNotNegative();
            assertThat(guard).as("the guard precedes the first write: %s", sent).isLessThan(firstWrite);
        }
        assertThat(fenceToken(name)).isEqualTo(lease.token());
    }

    @Test
    void theMarksAreClearedWhenTheConnectionReturnsToThePool() throws Exception {
        String name = lockName("pooled");
        long id = row();
        Lease lease = acquire(name);

        long session = fenced(lease, tx -> {
            write(tx, id, 4, lease);
            return tx.queryLong(sessionIdQuery());
        });

        // the pool hands this thread the connection it returned last
        try (Connection borrowed = db.dataSource().getConnection()) {
            assertThat(queryLong(borrowed, sessionIdQuery()))
                    .as("the next borrower has the fenced transaction's connection")
                    .isEqualTo(session);
            borrowed.setAutoCommit(false);
            try {
                Throwable refused = catchThrowable(() -> update(
                        borrowed, "update " + ITEMS + " set item_value = 5, writer_token = ? where id = ?", 0, id));
                assertThat(sqlExceptionIn(refused).getMessage().toLowerCase(Locale.ROOT))
                        .contains(ITEMS);
            } finally {
                borrowed.rollback();
                borrowed.setAutoCommit(true);
            }
        }
        assertThat(itemValue(id)).as("the fenced write, and nothing after it").isEqualTo(4);
    }

    @Test
    void aRefusalNamesTheLockTheStaleTokenAndTheNewerToken() throws Exception {
        String name = lockName("message");
        long id = row();
        Lease older = acquire(name);
        LocalLockFaults.loseLease(name);
        Lease newer = acquire(name);
        fenced(newer, tx -> write(tx, id, 2, newer));

        Throwable refused = catchThrowable(() -> fenced(older, tx -> write(tx, id, 1, older)));

        Refusal refusal = refusalIn(refused);
        assertThat(refusal.exception())
                .as("the refusal is what the adapter throws, or the cause of the framework's type it throws")
                .satisfiesAnyOf(
                        found -> assertThat(found).isSameAs(refused),
                        found -> assertThat(refused).hasCause(found));
        assertThat(refusal.lockName()).isEqualTo(name);
        assertThat(refusal.token()).isEqualTo(older.token());
        assertThat(refusal.newerToken()).hasValue(newer.token());
        assertThat(refusal.exception().getMessage())
                .contains(name)
                .contains(Long.toString(older.token()))
                .contains(Long.toString(newer.token()));
    }

    @Test
    void aLeaseAlreadyExpiredWhenTheTransactionBeginsIsRefusedBeforeTheBodyRuns() throws Exception {
        String name = lockName("expired");
        long id = row();
        Lease lease = acquire(name);
        LocalLockFaults.expireLease(name);
        assertThat(lease.isValid()).isFalse();
        AtomicBoolean ran = new AtomicBoolean();

        Throwable refused = catchThrowable(() -> fenced(lease, tx -> {
            ran.set(true);
            return write(tx, id, 6, lease);
        }));

        assertThat(ran).as("the body ran").isFalse();
        Refusal refusal = refusalIn(refused);
        assertThat(refusal.lockName()).isEqualTo(name);
        assertThat(refusal.token()).isEqualTo(lease.token());
        assertThat(itemValue(id)).isZero();
        assertThat(fenceToken(name)).as("no token was registered").isNull();
    }

    /**
     * A fence refusal as every adapter reports it: the lock, the refused lease's token, and the
     * newer token when the refusal was about one.
     */
    record Refusal(Throwable exception, String lockName, long token, OptionalLong newerToken) {}

    /**
     * The fence's refusal in {@code failure}'s cause chain, {@code failure} included: every adapter
     * raises {@link FenceRefusedException} or carries it as a cause.
     *
     * @throws AssertionError if there is none
     */
    static Refusal refusalIn(Throwable failure) {
        FenceRefusedException refusal = FenceRefusedException.findIn(failure)
                .orElseThrow(() -> new AssertionError("no fence refusal in the cause chain of " + failure, failure));
        return new Refusal(refusal, refusal.lockName(), refusal.token(), refusal.newerToken());
    }

    private static SQLException sqlExceptionIn(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql;
            }
        }
        throw new AssertionError("no database error in the cause chain of " + failure, failure);
    }

    private Lease acquire(String name) throws InterruptedException {
        return client.lock(name).acquire(WAIT, LEASE);
    }

    private String lockName(String what) {
        return "contract:" + getClass().getSimpleName() + ":" + what + ":" + NAMES.incrementAndGet();
    }

    /** A row of {@value #ITEMS} and of {@value #NOTES} no other case uses, both with value 0. */
    private long row() {
        long id = rows.incrementAndGet();
        if (id > ROWS) {
            throw new IllegalStateException("more than " + ROWS + " rows used; insert more in openDatabase");
        }
        return id;
    }

    private static int write(Tx tx, long id, long value, Lease lease) throws Exception {
        return tx.update(
                "update " + ITEMS + " set item_value = ?, writer_token = ? where id = ?", value, lease.token(), id);
    }

    private static int readModifyWrite(Tx tx, long id) throws Exception {
        long value = tx.queryLong("select note_value from " + NOTES + " where id = ?", id);
        return tx.update("update " + NOTES + " set note_value = ? where id = ?", value + 1, id);
    }

    private String sessionIdQuery() {
        return switch (kind()) {
            case H2 -> "select session_id()";
            case POSTGRESQL -> "select pg_backend_pid()";
            case MARIADB -> "select connection_id()";
        };
    }

    private long itemValue(long id) {
        return db.queryLong("select item_value from " + ITEMS + " where id = ?", id);
    }

    private long writerToken(long id) {
        return db.queryLong("select writer_token from " + ITEMS + " where id = ?", id);
    }

    private Long fenceToken(String name) {
        return db.queryLong("select token from fencedlock_fence where lock_name = ?", name);
    }

    private static int indexOf(List<String> statements, java.util.function.Predicate<String> matching) {
        for (int i = 0; i < statements.size(); i++) {
            if (matching.test(statements.get(i).toLowerCase(Locale.ROOT))) {
                return i;
            }
        }
        return -1;
    }

    /** Plain JDBC on {@code connection}, for the adapters that run on one. */
    static Tx jdbc(Connection connection) {
        return new Tx() {
            @Override
            public int update(String sql, long... parameters) throws SQLException {
                return FencedTransactionContract.update(connection, sql, parameters);
            }

            @Override
            public long queryLong(String sql, long... parameters) throws SQLException {
                return FencedTransactionContract.queryLong(connection, sql, parameters);
            }
        };
    }

    private static int update(Connection connection, String sql, long... parameters) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setLong(i + 1, parameters[i]);
            }
            return statement.executeUpdate();
        }
    }

    private static long queryLong(Connection connection, String sql, long... parameters) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setLong(i + 1, parameters[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    /** Runs {@code body} inside a callback that takes no checked exception. */
    static <T> T unchecked(Body<T> body, Tx tx) {
        try {
            return body.run(tx);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new UndeclaredThrowableException(e);
        }
    }
}
