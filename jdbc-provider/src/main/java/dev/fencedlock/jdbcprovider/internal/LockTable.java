package dev.fencedlock.jdbcprovider.internal;

import dev.fencedlock.LockException;
import dev.fencedlock.spi.TokenOrder;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The statements on the lock table, as one database runs them: {@link PostgreSqlLockTable},
 * {@link MariaDbLockTable} and {@link H2LockTable} each own everything that differs there (the
 * clock, how a statement is bounded on the server, which error means another transaction holds
 * the row, release notifications). This class keeps the algorithm they share.
 *
 * <p>Each statement runs in autocommit mode, so it is atomic on its own and needs no isolation
 * level above READ COMMITTED: the grant, the extension and the release compare and set in the
 * {@code WHERE} clause of a single {@code UPDATE}. Every time comparison uses the database's clock
 * ({@link #nowMillis()}), never the client's.
 *
 * <p>Every statement is bounded on the server as well as on the client ({@link Session}): it may
 * run for {@link Session#serverMillis()} at most, and unless the session allows it, it does not
 * wait for a row (or table) that another transaction has locked: it fails at once, and a grant
 * attempt reports the lock as {@linkplain Attempt#rowLocked() taken}. So a statement the client has
 * given up on never goes on to grant the lock later, when the other transaction ends.
 *
 * <p>Immutable and thread-safe.
 */
abstract class LockTable {
    private final String table;
    private final String nowMillis;

    /** @param nowMillis see {@link #nowMillis()} */
    LockTable(String table, String nowMillis) {
        this.table = table;
        this.nowMillis = nowMillis;
    }

    /**
     * The lock table of the database {@code connection} talks to, found from its metadata (no
     * statement is run).
     *
     * @throws IllegalArgumentException for a database this backend does not support, naming it
     */
    static LockTable of(Connection connection, String table) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        String product = meta.getDatabaseProductName();
        String lower = product.toLowerCase(Locale.ROOT);
        if (lower.equals("h2")) {
            return new H2LockTable(table);
        }
        if (lower.contains("postgresql")) {
            return new PostgreSqlLockTable(table);
        }
        // MySQL's drivers call MariaDB "MySQL"; its version still says MariaDB
        if (lower.contains("mariadb")
                || meta.getDatabaseProductVersion().toLowerCase(Locale.ROOT).contains("mariadb")) {
            return new MariaDbLockTable(table);
        }
        throw new IllegalArgumentException(
                "The jdbc lock backend supports H2, PostgreSQL and MariaDB; the database is '" + product + " "
                        + meta.getDatabaseProductVersion() + "'");
    }

    /** The table name, as configured. */
    final String table() {
        return table;
    }

    /**
     * A SQL expression for the database's wall clock in whole milliseconds since the epoch,
     * evaluated once per statement, at (or after) the moment the statement reached the server and
     * never before the client sent it: that is what lets a client count a lease's validity from
     * the moment it sent the statement that granted it.
     */
    final String nowMillis() {
        return nowMillis;
    }

    /** Whether {@code e} says that another transaction holds a lock the statement needed. */
    abstract boolean isLockConflict(SQLException e);

    /** The statement {@code sql}, prepared with the server-side bounds of {@code session}. */
    abstract PreparedStatement prepareBounded(Session session, String sql) throws SQLException;

    /**
     * Moves a statement from {@link #prepareBounded} to its own result, past whatever the bounds
     * added before it. Does nothing unless the bounds are statements of their own.
     */
    void skipBounds(PreparedStatement statement) throws SQLException {}

    /** Runs {@code work} under session-wide bounds where the database has no per-statement ones. */
    <T> T withinBounds(Session session, SqlWork<T> work) throws SQLException {
        return work.run();
    }

    /**
     * The id by which another connection can end this session's server process or thread
     * ({@link #endSession}); null where there is none. Asked before a grant is sent, so that the
     * grant can be stopped for good if its answer never comes.
     */
    Long sessionId(Session session) throws SQLException {
        return null;
    }

    /**
     * Ends the server session {@code ended} (from {@link #sessionId}) and waits, within the
     * session's time, until it is gone: whatever it had not yet run (a grant still on its way
     * through a partition) then never runs. Does nothing where there are no ids.
     */
    void endSession(Session session, Session.ServerSession ended) throws SQLException {}

    /** Whether releases are announced with {@code NOTIFY} and waiters woken by {@code LISTEN}. */
    boolean notifies() {
        return false;
    }

    /** Work on the lock table that may fail with an {@link SQLException}. */
    interface SqlWork<T> {
        T run() throws SQLException;
    }

    /** The result of one grant attempt. */
    record Attempt(OptionalLong token, long heldForMillis, boolean rowLocked) {
        static Attempt granted(long token) {
            return new Attempt(OptionalLong.of(token), 0, false);
        }

        static Attempt taken(long heldForMillis) {
            return new Attempt(OptionalLong.empty(), Math.max(0, heldForMillis), false);
        }

        /** Another transaction holds the lock's row (or the table) locked: taken, for how long unknown. */
        static Attempt locked() {
            return new Attempt(OptionalLong.empty(), 0, true);
        }
    }

    /** The lock's row as read after a grant attempt. */
    record Row(String lockName, String holder, long token, long leftMillis) {
        /**
         * @throws LockException if the row belongs to another name with the same key (a SHA-256 collision)
         */
        Attempt outcome(String table, String key, String name, String attemptHolder) {
            if (!lockName.equals(name)) {
                throw new LockException("Lock names '" + name + "' and '" + lockName + "' have the same key " + key
                        + " in " + table + "; refusing to share the row");
            }
            if (attemptHolder.equals(holder)) {
                return Attempt.granted(token);
            }
            // a grant shorter than the round trip may already have been taken over
            return Attempt.taken(holder == null ? 0 : leftMillis);
        }
    }

    /**
     * Grants {@code lockName} to {@code holder} for {@code leaseMillis} by the database's clock if
     * nobody holds it (released, or expired by that clock), with token {@link TokenOrder#next
     * TokenOrder.next(previous, now)}, computed in the statement; creates the lock's row first if it has none.
     *
     * @return the token; or how long (by the database's clock) the current grant has left; or that
     *     another transaction holds the row locked
     * @throws LockException if another name's row has this name's key (a SHA-256 collision)
     */
    final Attempt tryGrant(Session session, String key, String lockName, String holder, long leaseMillis)
            throws SQLException {
        return withinBounds(session, () -> {
            try {
                for (int round = 0; round < 2; round++) {
                    Row row = grantAndRead(session, key, lockName, holder, leaseMillis);
                    if (row != null) {
                        return row.outcome(table, key, lockName, holder);
                    }
                    insertRow(session, key, lockName);
                }
                return Attempt.taken(0);
            } catch (SQLException e) {
                if (isLockConflict(e)) {
                    return Attempt.locked();
                }
                throw e;
            }
        });
    }

    /** The grant's {@code UPDATE}; parameters holder, lease ms, key, name. */
    final String grantSql() {
        String now = nowMillis();
        return "UPDATE " + table + " SET holder = ?, token = GREATEST(token + 1, " + now + " * "
                + (1L << TokenOrder.SEQUENCE_BITS) + "), expires_at = " + now + " + ?"
                + " WHERE lock_key = ? AND lock_name = ? AND (holder IS NULL OR expires_at <= " + now + ")";
    }

    /** Reads the lock's row; parameter key. */
    final String readSql() {
        return "SELECT lock_name, holder, token, expires_at - " + nowMillis() + " FROM " + table
                + " WHERE lock_key = ?";
    }

    /**
     * Runs the grant's {@code UPDATE} and then reads the row, in two round trips unless the
     * database can send both at once.
     *
     * @return the row after the update; null if the lock has no row yet
     */
    Row grantAndRead(Session session, String key, String lockName, String holder, long leaseMillis)
            throws SQLException {
        update(session, grantSql(), holder, leaseMillis, key, lockName);
        try (PreparedStatement select = prepareBounded(session, readSql())) {
            bind(select, key);
            select.execute();
            skipBounds(select);
            return readRow(select.getResultSet());
        }
    }

    /** The first row of {@code rows} from {@link #readSql()}; null if there is none. */
    static Row readRow(ResultSet rows) throws SQLException {
        try (rows) {
            return rows.next() ? new Row(rows.getString(1), rows.getString(2), rows.getLong(3), rows.getLong(4)) : null;
        }
    }

    private void insertRow(Session session, String key, String lockName) throws SQLException {
        try {
            update(
                    session,
                    "INSERT INTO " + table
                            + " (lock_key, lock_name, holder, token, expires_at) VALUES (?, ?, NULL, 0, 0)",
                    key,
                    lockName);
        } catch (SQLException e) {
            if (!isIntegrityViolation(e)) {
                throw e;
            }
            // another client created the row first: just as good
        }
    }

    private static boolean isIntegrityViolation(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("23");
    }

    /**
     * Moves the end of {@code holder}'s grant to now + {@code leaseMillis} by the database's clock,
     * if the grant is still there and has not expired by that clock.
     *
     * @return whether the grant was extended
     */
    final boolean extend(Session session, String key, String holder, long leaseMillis) throws SQLException {
        String now = nowMillis();
        return withinBounds(
                session,
                () -> update(
                                session,
                                "UPDATE " + table + " SET expires_at = " + now
                                        + " + ? WHERE lock_key = ? AND holder = ? AND expires_at > " + now,
                                leaseMillis,
                                key,
                                holder)
                        == 1);
    }

    /**
     * Clears {@code holder}'s grant if it is still the row's holder; never touches a later grant.
     *
     * @return whether this call released the grant
     */
    boolean release(Session session, String key, String holder) throws SQLException {
        return withinBounds(
                session,
                () -> update(
                                session,
                                "UPDATE " + table + " SET holder = NULL WHERE lock_key = ? AND holder = ?",
                                key,
                                holder)
                        == 1);
    }

    /**
     * Reads no row of the table but names every column the statements use, so it fails (SQLSTATE
     * class 42) if the table is missing, lacks a column or may not be read. Takes no lock.
     */
    final void probe(Session session) throws SQLException {
        withinBounds(session, () -> {
            try (PreparedStatement select = prepareBounded(
                    session, "SELECT lock_key, lock_name, holder, token, expires_at FROM " + table + " WHERE 1 = 0")) {
                select.execute();
                skipBounds(select);
                select.getResultSet().close();
            }
            return null;
        });
    }

    /** Runs one bounded {@code UPDATE} or {@code INSERT} and returns its update count. */
    final int update(Session session, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = prepareBounded(session, sql)) {
            bind(statement, parameters);
            statement.execute();
            skipBounds(statement);
            return statement.getUpdateCount();
        }
    }

    static void bind(PreparedStatement statement, Object... parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            statement.setObject(i + 1, parameters[i]);
        }
    }

    /** The {@link ReleaseSignals} key of a lock key in {@code table}. */
    static String signalKey(String table, String key) {
        return channel(table) + ":" + key;
    }

    /** The {@code LISTEN}/{@code NOTIFY} channel of {@code table}: its name, lower case, dots as underscores. */
    static String channel(String table) {
        return table.toLowerCase(Locale.ROOT).replace('.', '_');
    }

    final String channel() {
        return channel(table);
    }
}
