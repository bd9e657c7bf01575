package dev.fencedlock.jdbcprovider.internal;

import dev.fencedlock.LockException;
import dev.fencedlock.spi.TokenOrder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * The statements on the lock table. Each runs in autocommit mode as one statement, so each is
 * atomic on its own and needs no isolation level above READ COMMITTED: the grant, the extension
 * and the release compare and set in the {@code WHERE} clause of a single {@code UPDATE}, which
 * takes the row lock and re-reads the row after waiting for it. Every time comparison uses the
 * database's clock ({@link Dialect#nowMillis()}), never the client's.
 *
 * <p>Thread-safety: thread-safe; every call takes its own connection from the data source.
 */
final class LockTable {
    private final DataSource dataSource;
    private final String table;
    private final int networkTimeoutMillis;
    private volatile Dialect dialect;

    LockTable(DataSource dataSource, String table, Duration operationTimeout) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.table = Objects.requireNonNull(table, "table");
        this.networkTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, operationTimeout.toMillis());
    }

    String table() {
        return table;
    }

    /** The result of one grant attempt. */
    record Attempt(OptionalLong token, long heldForMillis) {
        static Attempt granted(long token) {
            return new Attempt(OptionalLong.of(token), 0);
        }

        static Attempt taken(long heldForMillis) {
            return new Attempt(OptionalLong.empty(), Math.max(0, heldForMillis));
        }
    }

    /**
     * Grants {@code lockName} to {@code holder} for {@code leaseMillis} by the database's clock if
     * nobody holds it (released, or expired by that clock), with token {@link TokenOrder#next
     * TokenOrder.next(previous, now)}, computed in the statement; creates the lock's row first if it has none.
     *
     * @return the token, or how long (by the database's clock) the current grant has left
     * @throws LockException if another name's row has this name's key (a SHA-256 collision)
     */
    Attempt tryGrant(String key, String lockName, String holder, long leaseMillis) throws SQLException {
        String now = dialect().nowMillis();
        String grant = "UPDATE " + table + " SET holder = ?, token = GREATEST(token + 1, " + now + " * "
                + (1L << TokenOrder.SEQUENCE_BITS) + "),"
                + " expires_at = " + now + " + ? WHERE lock_key = ? AND lock_name = ?"
                + " AND (holder IS NULL OR expires_at <= " + now + ")";
        try (Connection connection = open()) {
            for (int round = 0; round < 2; round++) {
                int granted;
                try (PreparedStatement update = connection.prepareStatement(grant)) {
                    update.setString(1, holder);
                    update.setLong(2, leaseMillis);
                    update.setString(3, key);
                    update.setString(4, lockName);
                    granted = update.executeUpdate();
                }
                if (granted == 1) {
                    return readToken(connection, key, holder);
                }
                OptionalLong heldFor = heldFor(connection, key, lockName);
                if (heldFor.isPresent()) {
                    return Attempt.taken(heldFor.getAsLong());
                }
                insertRow(connection, key, lockName);
            }
            return Attempt.taken(0);
        }
    }

    private Attempt readToken(Connection connection, String key, String holder) throws SQLException {
        try (PreparedStatement select =
                connection.prepareStatement("SELECT token FROM " + table + " WHERE lock_key = ? AND holder = ?")) {
            select.setString(1, key);
            select.setString(2, holder);
            try (ResultSet row = select.executeQuery()) {
                // a grant shorter than the round trip may already have been taken over
                return row.next() ? Attempt.granted(row.getLong(1)) : Attempt.taken(0);
            }
        }
    }

    /** How long the current grant has left; empty if the lock has no row yet. */
    private OptionalLong heldFor(Connection connection, String key, String lockName) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT lock_name, holder, expires_at - "
                + dialect().nowMillis() + " FROM " + table + " WHERE lock_key = ?")) {
            select.setString(1, key);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    return OptionalLong.empty();
                }
                String storedName = row.getString(1);
                if (!storedName.equals(lockName)) {
                    throw new LockException("Lock names '" + lockName + "' and '" + storedName + "' have the same key "
                            + key + " in " + table + "; refusing to share the row");
                }
                return OptionalLong.of(row.getString(2) == null ? 0 : row.getLong(3));
            }
        }
    }

    private void insertRow(Connection connection, String key, String lockName) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table
                + " (lock_key, lock_name, holder, token, expires_at) VALUES (?, ?, NULL, 0, 0)")) {
            insert.setString(1, key);
            insert.setString(2, lockName);
            insert.executeUpdate();
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
    boolean extend(String key, String holder, long leaseMillis) throws SQLException {
        String now = dialect().nowMillis();
        try (Connection connection = open();
                PreparedStatement update = connection.prepareStatement("UPDATE " + table + " SET expires_at = " + now
                        + " + ? WHERE lock_key = ? AND holder = ? AND expires_at > " + now)) {
            update.setLong(1, leaseMillis);
            update.setString(2, key);
            update.setString(3, holder);
            return update.executeUpdate() == 1;
        }
    }

    /**
     * Clears {@code holder}'s grant if it is still the row's holder; never touches a later grant.
     * On PostgreSQL a release is announced on {@link #channel()} with the key as payload.
     *
     * @return whether this call released the grant
     */
    boolean release(String key, String holder) throws SQLException {
        try (Connection connection = open()) {
            int released;
            try (PreparedStatement update = connection.prepareStatement(
                    "UPDATE " + table + " SET holder = NULL WHERE lock_key = ? AND holder = ?")) {
                update.setString(1, key);
                update.setString(2, holder);
                released = update.executeUpdate();
            }
            if (released == 1 && dialect().notifies()) {
                try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
                    notify.setString(1, channel());
                    notify.setString(2, key);
                    notify.execute();
                }
            }
            return released == 1;
        }
    }

    /** The {@link ReleaseSignals} key of a lock key in this table. */
    String signalKey(String key) {
        return channel() + ":" + key;
    }

    /** The {@code LISTEN}/{@code NOTIFY} channel of this table: its name, lower case, dots as underscores. */
    String channel() {
        return table.toLowerCase(Locale.ROOT).replace('.', '_');
    }

    /** The dialect, if a connection has answered yet. */
    Optional<Dialect> knownDialect() {
        return Optional.ofNullable(dialect);
    }

    /** The database's dialect, found from the first connection that answers. */
    Dialect dialect() throws SQLException {
        Dialect known = dialect;
        if (known == null) {
            try (Connection connection = dataSource.getConnection()) {
                known = Dialect.of(connection);
            }
            dialect = known;
        }
        return known;
    }

    /** A connection in autocommit mode whose reads give up after the operation timeout. */
    Connection open() throws SQLException {
        Connection connection = dataSource.getConnection();
        try {
            if (!connection.getAutoCommit()) {
                connection.setAutoCommit(true);
            }
            try {
                connection.setNetworkTimeout(Runnable::run, networkTimeoutMillis);
            } catch (SQLFeatureNotSupportedException e) {
                // an embedded database has no network to time out
            }
            return connection;
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    DataSource dataSource() {
        return dataSource;
    }
}
