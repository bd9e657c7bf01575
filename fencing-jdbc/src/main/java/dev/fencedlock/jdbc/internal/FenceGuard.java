package dev.fencedlock.jdbc.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.LockException;
import dev.fencedlock.LockNames;
import dev.fencedlock.jdbc.FenceRowBusyException;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.jdbc.FencedTables;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fence row's statements: one row per lock name in a table ({@value FenceTable#DEFAULT_NAME}
 * unless told otherwise) holding the newest token a fenced transaction of that lock has
 * registered. {@link FencedTransaction} drives these steps in their one order; nothing else calls
 * them.
 *
 * <p>{@link #enter} is the transaction's first statement:
 *
 * <ol>
 *   <li>{@code update <table> set token = ? where lock_name = ? and token <= ?}. One row changed:
 *       entered. The row now stays locked until the transaction ends, so every other transaction
 *       of the lock waits for this one at its own first statement, and then sees this token.
 *   <li>No row changed: a locking read of the row ({@code select ... for update}). A larger token:
 *       refused with {@link FenceRefusedException}. The same token (a driver that reports changed
 *       rather than matched rows): entered. A smaller one: raised, entered.
 *   <li>No row (the lock's first fenced transaction in this database): an insert of the row inside
 *       a savepoint. A racing first insert of the same lock makes it fail with a unique violation;
 *       the savepoint is rolled back and the guard starts again from step 1, a bounded number of
 *       times.
 * </ol>
 *
 * <p>On an H2 database embedded in this JVM, step 1 for a row that already holds the token (every
 * transaction of a lease after its first) is H2's own row lock taken in its engine, without a
 * statement and without a new version of the row; docs/fencing.md says why that orders H2's
 * transactions as the update does.
 *
 * <p>So the transactions of one lock name run one at a time from their first statement to their
 * end, in token order: a transaction with a lower token than one already registered is refused
 * before it writes anything, and two transactions with the same token (one lease) are serialized
 * by the row lock. This holds for data that every writer changes only inside such transactions of
 * the same lock name.
 *
 * <p>The first statement also marks the transaction as fenced (PostgreSQL, H2, MariaDB/MySQL; on
 * MariaDB the mark is a session variable that {@link #afterCompletion} clears), which the triggers
 * of {@link FencedTables#protect protected tables} require of every write, and, given a
 * bound, limits how long the transaction waits for the row and
 * (PostgreSQL, MariaDB) how long it may then sit idle, so that a holder stalled inside its
 * transaction cannot keep the row beyond its lease (see "Bounded waits" below). Before the first
 * use on a database the table's shape is checked: without its primary key on {@code lock_name} two
 * first transactions of a lock could both insert a row, so the guard refuses to run.
 *
 * <p>Lock names are compared exactly. On MariaDB/MySQL the column takes the database's collation,
 * which may fold case or pad trailing spaces; the guard then compares the stored name byte for
 * byte and fails with a {@link LockException} that names both names and how to fix the column,
 * instead of letting two names share a row.
 *
 * <p><b>Bounded waits.</b> A holder that stalls inside its fenced transaction (a long pause, a
 * stopped process, a hung thread) with its connection open keeps the fence row locked; the lock's
 * later transactions wait for it at their first statement. With a bound (the lease's remaining
 * time, {@code r}):
 *
 * <ul>
 *   <li>PostgreSQL ends the stalled transaction's session once it has sat idle for {@code r} plus
 *       {@link GuardStatements#IDLE_GRACE} ({@code idle_in_transaction_session_timeout}, set
 *       transaction-locally, so nothing outlives the transaction). Its row lock is freed then and
 *       the waiting holder goes on; the stalled holder, when it wakes, gets SQLState {@value
 *       #IDLE_TIMEOUT_STATE} ({@link #endedForIdling}) and nothing it wrote is kept.
 *   <li>MariaDB closes the stalled transaction's connection once it has sat idle for {@code r}
 *       plus the grace, rounded up to whole seconds ({@code idle_transaction_timeout}). That is a
 *       session setting: {@code enter} sets it in the statement that raises the row (or the one
 *       that marks the transaction), and {@link #afterCompletion} or {@link #commitRestoring} puts
 *       it back when the transaction ends: {@link FencedTransaction} does that for every adapter
 *       (JDBC, JPA, Spring). The stalled holder, when it wakes, finds its connection closed (a
 *       connection failure, SQLState class {@code 08}); nothing it wrote is kept.
 *   <li>H2 has no idle timeout and cannot end a stalled transaction: the waiting transaction waits
 *       for its session's {@code LOCK_TIMEOUT} (the guard leaves it alone) and then fails with a
 *       lock timeout that {@link #explainWait} turns into {@link FenceRowBusyException}. The row
 *       stays locked until the stalled holder wakes (its lease check before the commit then refuses
 *       it) or its session is closed.
 * </ul>
 *
 * <p>Each wait for the row is bounded too, by {@code r} (PostgreSQL's {@code lock_timeout},
 * MariaDB's {@code innodb_lock_wait_timeout} in whole seconds) or, on H2, by {@code LOCK_TIMEOUT}.
 * So a waiting holder goes on within about the stalled holder's remaining lease plus the grace
 * (PostgreSQL, MariaDB) or fails within its own bound with a {@link FenceRowBusyException} that
 * names the lock and what the database says of the holder. The bounds are as exact as the
 * server's timers: PostgreSQL's are in milliseconds; MariaDB counts whole seconds, and notices an
 * idle connection at its next network read timeout. They assume the server is not itself stopped
 * and that the lease's remaining time was measured when the guard ran. Under {@code JdbcFencing}
 * a stalled holder whose transaction the server ended gets {@link FenceRefusedException} ({@link
 * FenceRefusedException.Reason#ENDED_BY_DATABASE}) at its next statement, the database's failure as its cause.
 *
 * <p>Immutable and thread-safe; a connection is used by one thread at a time, as JDBC requires.
 */
final class FenceGuard {
    private static final Map<String, FenceGuard> GUARDS = new ConcurrentHashMap<>();

    /** Enough for a racing first insert and a row that changed between two statements. */
    static final int ATTEMPTS = 3;
    /** PostgreSQL: the session was ended by {@code idle_in_transaction_session_timeout}. */
    static final String IDLE_TIMEOUT_STATE = "25P03";

    private final String table;
    private final Map<Database, GuardStatements> statements = new EnumMap<>(Database.class);
    private final FenceTableShape shape;
    private final String raiseSql;
    private final String lockingReadSql;
    private final String readSql;
    private final String insertSql;

    private FenceGuard(String table) {
        this.table = table;
        for (Database database : Database.values()) {
            statements.put(database, GuardStatements.of(database, table));
        }
        this.shape = new FenceTableShape(table);
        this.raiseSql = "update " + table + " set token = ? where lock_name = ?";
        this.readSql = "select lock_name, token from " + table + " where lock_name = ?";
        this.lockingReadSql = readSql + " for update";
        this.insertSql = "insert into " + table + " (lock_name, token) values (?, ?)";
    }

    /** The guard on {@code table}; one per table name, kept for the JVM's life. */
    static FenceGuard of(FenceTable table) {
        return GUARDS.computeIfAbsent(table.name(), FenceGuard::new);
    }

    /** The table this guard writes. */
    String table() {
        return table;
    }

    /**
     * Must be the first statement of the transaction on {@code connection} (autocommit off): raises
     * the lock's row to {@code token} (inserting it when absent) unless it holds a larger token; the
     * row lock then orders the lock's transactions until this one ends. Statements run before it in
     * the same transaction are not ordered by the fence.
     *
     * <p>The caller ends the transaction (commit or rollback) on every path. On embedded H2 the
     * guard may run no statement on {@code connection} at all, so a pool that rolls back only
     * connections it saw run statements (HikariCP with {@code autoCommit=false}) would not end a
     * transaction left open for it.
     *
     * <p>{@code bound} limits how long the transaction waits for the row: PostgreSQL's {@code
     * lock_timeout} and MariaDB's {@code innodb_lock_wait_timeout} (whole seconds, rounded up), all
     * transaction-local; and how long the transaction may then sit idle (the bound plus {@link
     * GuardStatements#IDLE_GRACE}): PostgreSQL's {@code idle_in_transaction_session_timeout},
     * transaction-local, and MariaDB's {@code idle_transaction_timeout}, a session setting that
     * {@link #afterCompletion} or {@link #commitRestoring} puts back. H2's lock timeout is its session's {@code
     * LOCK_TIMEOUT}, and H2 has no idle timeout. A wait that runs out fails with the database's
     * lock-timeout error; roll back, then {@link #explainWait} says who holds the row. A failure of a
     * statement (a deadlock, a lock or serialization timeout) is thrown as the driver reported it and
     * usually leaves the transaction unusable: roll it back, then {@link #explain} the failure.
     *
     * @param bound the longest wait, null for the database's own settings; at least 1 ms is used
     * @throws FenceRefusedException ({@link FenceRefusedException.Reason#NEWER_TOKEN_REGISTERED}) if
     *     the row holds a larger token: a later holder of the lock has entered; the caller must roll
     *     back
     * @throws SQLTransactionRollbackException (SQLState {@code 40001}) if the row exists but this
     *     transaction cannot see or write it (it was created after the transaction's snapshot under
     *     REPEATABLE READ or SERIALIZABLE); roll back and {@link #explain}, or retry
     * @throws SQLSyntaxErrorException if the table is missing, with how to create it
     * @throws java.sql.SQLFeatureNotSupportedException (SQLState {@code 0A000}) if the transaction
     *     runs at an isolation level at which the database cannot keep the guarantee (SERIALIZABLE
     *     on H2); nothing was run
     * @throws LockException if the table holds a row whose name differs from {@code lockName} but
     *     compares equal to it (a case-insensitive or space-padding collation on MariaDB/MySQL), or
     *     if the table lacks its primary key on {@code lock_name}
     * @throws IllegalArgumentException if {@code connection} is null, closed or in autocommit mode,
     *     {@code lockName} is not a valid lock name, {@code token} is negative or {@code bound}
     *     negative; nothing was run
     * @throws SQLException any other failure of the database
     */
    void enter(Connection connection, String lockName, long token, Duration bound) throws SQLException {
        requireTransaction(connection);
        LockNames.requireValid(lockName);
        if (token < 0) {
            throw new IllegalArgumentException("token must not be negative, got " + token);
        }
        if (bound != null && bound.isNegative()) {
            throw new IllegalArgumentException("bound must not be negative, got " + bound);
        }
        GuardStatements guard = checked(connection);
        try {
            for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
                if (guard.raiseIfNotAbove(connection, lockName, token, bound)) {
                    return;
                }
                Row row = read(connection, guard.bounded(lockingReadSql, bound), lockName);
                if (row != null) {
                    if (enterExisting(connection, row, lockName, token)) {
                        guard.mark(connection, lockName, token, bound);
                        return;
                    }
                } else {
                    guard.bound(connection, bound);
                    if (insert(connection, guard.bounded(insertSql, bound), lockName, token)) {
                        guard.mark(connection, lockName, token, bound);
                        return;
                    }
                }
                // the row appeared or changed between the statements: from the top
            }
        } catch (SQLException e) {
            throw missingTable(e);
        }
        throw new SQLTransactionRollbackException(
                "The fence row of lock '" + lockName + "' in " + table + " exists but this transaction cannot "
                        + "write it after " + ATTEMPTS + " attempts: it was created after the transaction's "
                        + "snapshot (REPEATABLE READ or SERIALIZABLE); roll back and retry",
                "40001");
    }

    /**
     * The statements for the database {@code meta} describes, without any check ({@link
     * DeferredGuard}).
     */
    GuardStatements statementsFor(DatabaseMetaData meta) throws SQLException {
        return statements.get(Database.of(meta));
    }

    /**
     * The statements for {@code connection}'s database, after the checks {@link #enter} makes before
     * it runs anything: the isolation level, and (once per database) the table's shape ({@link
     * DeferredGuard}).
     *
     * @throws SQLSyntaxErrorException if the table is missing, with how to create it
     */
    GuardStatements checked(Connection connection) throws SQLException {
        requireTransaction(connection);
        DatabaseMetaData meta = connection.getMetaData();
        GuardStatements guard = statementsFor(meta);
        guard.requireSafeIsolation(connection);
        try {
            shape.check(connection, meta, guard.database());
        } catch (SQLException e) {
            throw missingTable(e);
        }
        return guard;
    }

    /**
     * After the transaction that {@link #enter} began has committed or rolled back: gives the
     * session back what {@link #enter} changed for that transaction's sake and the database cannot
     * scope to it (MariaDB/MySQL: the guard's mark, which protected tables' triggers read, and
     * MariaDB's {@code idle_transaction_timeout}), so that later work on the same pooled connection
     * neither carries the mark nor is bounded by a lease it does not run under. One statement on
     * MariaDB/MySQL; nothing on PostgreSQL and H2, whose changes end with the transaction, and
     * nothing on a closed connection (a server that ended the transaction for idling closed it).
     * Idempotent; safe to call when {@code enter} failed or changed nothing (the statement then
     * changes nothing).
     *
     * @throws IllegalArgumentException if {@code connection} is null
     * @throws SQLException if the database fails the statement
     */
    void afterCompletion(Connection connection) throws SQLException {
        if (connection == null) {
            throw new IllegalArgumentException("connection must not be null");
        }
        if (connection.isClosed()) {
            return;
        }
        statements.get(Database.of(connection)).restoreSession(connection);
    }

    /**
     * Commits the transaction that {@link #enter} began and gives the session back as {@link
     * #afterCompletion} does, and, if {@code thenAutoCommit}, switches autocommit on, in one round
     * trip where the database and its driver allow it (MariaDB through Connector/J; {@link
     * GuardStatements#commitRestoring}).
     *
     * @return true if done; false, having run nothing, where the caller commits and then runs
     *     {@link #afterCompletion}
     * @throws SQLException if the commit failed or the session could not be given back first; the
     *     caller rolls back and runs {@link #afterCompletion}
     */
    boolean commitRestoring(Connection connection, boolean thenAutoCommit) throws SQLException {
        return statements.get(Database.of(connection)).commitRestoring(connection, thenAutoCommit);
    }

    /**
     * For a failure of the transaction (serialization failure, deadlock, lock timeout): the refusal
     * it hides, if the committed row now holds a newer token; empty otherwise, and for any other
     * kind of failure. Reads on {@code connection}, which must have been rolled back after the
     * failure; with autocommit off, the read's own transaction is rolled back before this returns.
     * A failure of the read is added to {@code failure} as suppressed and gives empty.
     *
     * @return the refusal, with {@code failure} as its cause
     * @throws IllegalArgumentException if an argument is null or {@code lockName} is not a valid
     *     lock name
     */
    Optional<FenceRefusedException> explain(Connection connection, SQLException failure, String lockName, long token) {
        if (connection == null || failure == null) {
            throw new IllegalArgumentException("connection and failure must not be null, got connection " + connection
                    + " and failure " + failure);
        }
        LockNames.requireValid(lockName);
        if (!ConcurrencyFailures.isConcurrencyFailure(failure)) {
            return Optional.empty();
        }
        try {
            Row row = read(connection, readSql, lockName);
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
            if (row != null && row.name.equals(lockName) && row.token > token) {
                return Optional.of(refused(lockName, token, row.token, failure));
            }
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
        return Optional.empty();
    }

    /**
     * For a failure of {@link #enter} that was a lock timeout (the bounded wait for the row ran
     * out, or the database's own lock timeout): the {@link FenceRowBusyException} that says so,
     * with what the database tells of the transaction holding the row (PostgreSQL: its process id,
     * how long it has been open and idle). Empty for any other failure. Reads on {@code connection},
     * which must have been rolled back after the failure; with autocommit off, the read's own
     * transaction is rolled back before this returns. A failure of the read is added to {@code
     * failure} as suppressed.
     *
     * @param bound the bound {@code enter} was given, or null
     * @throws IllegalArgumentException if {@code connection} or {@code failure} is null or {@code
     *     lockName} is not a valid lock name
     */
    Optional<FenceRowBusyException> explainWait(
            Connection connection, SQLException failure, String lockName, long token, Duration bound) {
        if (connection == null || failure == null) {
            throw new IllegalArgumentException("connection and failure must not be null, got connection " + connection
                    + " and failure " + failure);
        }
        LockNames.requireValid(lockName);
        if (!ConcurrencyFailures.isLockTimeout(failure)) {
            return Optional.empty();
        }
        String holder = null;
        try {
            holder = RowHolder.describe(connection, Database.of(connection), table, lockName)
                    .orElse(null);
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
        return Optional.of(new FenceRowBusyException(lockName, token, bound, holder, failure));
    }

    /**
     * Whether {@code failure} says the database ended a fenced transaction because it sat idle for
     * longer than its guard allowed (the lease's remaining time at the guard plus {@link
     * GuardStatements#IDLE_GRACE}): PostgreSQL's {@code
     * idle_in_transaction_session_timeout}, SQLState {@value #IDLE_TIMEOUT_STATE}. Such a
     * transaction was rolled back by the server and its session closed: nothing it wrote landed,
     * which makes it a refused stale write, not an outcome in doubt. False for null and for every
     * other failure.
     */
    static boolean endedForIdling(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && IDLE_TIMEOUT_STATE.equals(sql.getSQLState())) {
                return true;
            }
            if (cause.getCause() == cause) {
                return false;
            }
        }
        return false;
    }

    private static void requireTransaction(Connection connection) throws SQLException {
        if (connection == null) {
            throw new IllegalArgumentException("connection must not be null");
        }
        if (connection.isClosed()) {
            throw new IllegalArgumentException("connection must be open, got a closed one: " + connection);
        }
        if (connection.getAutoCommit()) {
            throw new IllegalArgumentException("connection must have autocommit off: the guard is the first "
                    + "statement of a transaction and holds the fence row until that transaction ends");
        }
    }

    /** The row, locked; whether the transaction has entered. */
    private boolean enterExisting(Connection connection, Row row, String lockName, long token) throws SQLException {
        if (!row.name.equals(lockName)) {
            throw sharedRow(row.name, lockName);
        }
        if (row.token > token) {
            throw refused(lockName, token, row.token, null);
        }
        if (row.token == token) {
            return true;
        }
        try (PreparedStatement statement = connection.prepareStatement(raiseSql)) {
            statement.setLong(1, token);
            statement.setString(2, lockName);
            return statement.executeUpdate() == 1;
        }
    }

    /** Whether the row was inserted; false if a racing insert won and the savepoint was rolled back. */
    private boolean insert(Connection connection, String sql, String lockName, long token) throws SQLException {
        Savepoint savepoint = connection.setSavepoint();
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, lockName);
            statement.setLong(2, token);
            statement.executeUpdate();
        } catch (SQLException e) {
            try {
                connection.rollback(savepoint);
            } catch (SQLException rollbackFailure) {
                // a deadlock can roll the whole transaction back, savepoint included
                e.addSuppressed(rollbackFailure);
                throw e;
            }
            if (isUniqueViolation(e)) {
                return false;
            }
            throw e;
        }
        connection.releaseSavepoint(savepoint);
        return true;
    }

    /** The table has one constraint, its primary key, so any integrity violation is a duplicate. */
    private static boolean isUniqueViolation(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("23");
    }

    private static Row read(Connection connection, String sql, String lockName) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, lockName);
            try (ResultSet rows = statement.executeQuery()) {
                Row found = null;
                while (rows.next()) {
                    Row row = new Row(rows.getString(1), rows.getLong(2));
                    if (found == null || row.name.equals(lockName)) {
                        found = row;
                    }
                }
                return found;
            }
        }
    }

    private LockException sharedRow(String stored, String requested) {
        return new LockException("Lock names '" + requested + "' and '" + stored + "' would share one fence row in "
                + table + ": its lock_name column compares them as equal (a case-insensitive or "
                + "space-padding collation). The fence needs names compared exactly; on MariaDB run ALTER TABLE "
                + table + " MODIFY lock_name VARCHAR(256) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL"
                + " (MySQL 8: COLLATE utf8mb4_0900_bin); see docs/fencing.md");
    }

    private SQLException missingTable(SQLException e) {
        String state = e.getSQLState();
        boolean missing = state != null
                && (state.equals("42S02") || state.equals("42S04") || state.equals("42P01") || state.equals("42102"));
        // H2: 42102 table not found, 42104 table not found in a database that has no tables yet
        if (!missing && e.getErrorCode() != 42102 && e.getErrorCode() != 42104) {
            return e;
        }
        return new SQLSyntaxErrorException(
                "The fence table " + table + " is missing: add classpath:db/fencedlock/migration to Flyway's "
                        + "locations, or run its V1__fencedlock_fence.sql by hand (Spring Boot: the starter creates"
                        + " it at start-up only in an embedded database, or in any with"
                        + " fencedlock.initialize-schema=always) (" + e.getMessage() + ")",
                state,
                e.getErrorCode(),
                e);
    }

    private static FenceRefusedException refused(String lockName, long token, long registered, Throwable cause) {
        return new FenceRefusedException(
                FenceRefusedException.Reason.NEWER_TOKEN_REGISTERED,
                lockName,
                token,
                registered,
                "the transaction is refused",
                cause);
    }

    private record Row(String name, long token) {}
}
