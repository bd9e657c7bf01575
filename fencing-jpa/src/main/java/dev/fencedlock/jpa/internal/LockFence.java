package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.jpa.FencingSettings;
import dev.fencedlock.jpa.StaleFencingTokenException;
import dev.fencedlock.jpa.StaleFencingTokenException.Reason;
import jakarta.persistence.OptimisticLockException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.hibernate.JDBCException;
import org.hibernate.dialect.Dialect;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.exception.SQLGrammarException;
import org.hibernate.tool.schema.spi.SchemaManagementException;

/**
 * The lock fence ({@link FencingSettings#LOCK_FENCE}): one row per lock name holding the newest
 * token that committed fenced writes under that lock. At commit, for each lease that fenced writes
 * of the transaction were flushed under:
 *
 * <ol>
 *   <li>{@code UPDATE <table> SET token = :token WHERE lock_name = :lock AND token <= :token}. One
 *       row: done; the row stays locked until the transaction ends, so a concurrent commit under
 *       the same lock waits for this one and then compares against its token.
 *   <li>No row: a locking read of the row. A newer token: refused ({@link
 *       Reason#NEWER_HOLDER_WROTE}). No row at all (the lock's first fenced commit): an INSERT of
 *       the lock's row with the token, inside a savepoint, so that losing a race with a concurrent
 *       first insert leaves the transaction usable; then from the top.
 *   <li>A concurrency failure of these statements (serialization failure, deadlock, lock timeout)
 *       is refused as {@link Reason#NEWER_HOLDER_WROTE} if the committed row now holds a newer
 *       token, and passed on unchanged otherwise.
 * </ol>
 *
 * <p>The row is written last, after the commit's flush, so a transaction holds the row's lock only
 * for the moment of its commit and takes it after all its row locks: waiting for it can never be
 * part of a deadlock with the fenced rows. Immutable and thread-safe; {@link #OFF} does nothing.
 */
final class LockFence {
    static final LockFence OFF = new LockFence(null, null);

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*(\\.[A-Za-z_][A-Za-z0-9_$]*)?");
    private static final int ATTEMPTS = 3;

    private final String table;
    private final String updateSql;
    private final String lookupSql;
    private final String lockingLookupSql;
    private final String insertSql;

    private LockFence(String table, Dialect dialect) {
        this.table = table;
        boolean on = table != null;
        this.updateSql = on ? "update " + table + " set token=? where lock_name=? and token<=?" : null;
        this.lookupSql = on ? "select token from " + table + " where lock_name=?" : null;
        this.lockingLookupSql = on ? lookupSql + dialect.getForUpdateString() : null;
        this.insertSql = on ? "insert into " + table + " (lock_name,token) values (?,?)" : null;
    }

    /** The lock fence the factory's settings ask for, {@link #OFF} if none. */
    static LockFence of(SessionFactoryImplementor factory) {
        return of(factory.getProperties(), factory.getJdbcServices().getDialect());
    }

    /**
     * The lock fence {@code settings} ask for, {@link #OFF} if none.
     *
     * @throws IllegalArgumentException if {@link FencingSettings#LOCK_FENCE} is not a boolean or
     *     {@link FencingSettings#LOCK_FENCE_TABLE} not a plain or schema-qualified table name
     */
    static LockFence of(Map<String, Object> settings, Dialect dialect) {
        if (!enabled(settings.get(FencingSettings.LOCK_FENCE))) {
            return OFF;
        }
        Object table =
                settings.getOrDefault(FencingSettings.LOCK_FENCE_TABLE, FencingSettings.DEFAULT_LOCK_FENCE_TABLE);
        if (!(table instanceof String name) || !TABLE_NAME.matcher(name.trim()).matches()) {
            throw new IllegalArgumentException(FencingSettings.LOCK_FENCE_TABLE
                    + " must be a table name, optionally qualified by a schema (letters, digits, '_', '$'), got '"
                    + table + "'");
        }
        return new LockFence(name.trim(), dialect);
    }

    private static boolean enabled(Object value) {
        if (value == null || value instanceof Boolean) {
            return Boolean.TRUE.equals(value);
        }
        String text = value.toString().trim().toLowerCase(Locale.ROOT);
        if (text.equals("true") || text.equals("false")) {
            return text.equals("true");
        }
        throw new IllegalArgumentException(FencingSettings.LOCK_FENCE + " must be true or false, got '" + value + "'");
    }

    boolean isOn() {
        return table != null;
    }

    String table() {
        return table;
    }

    /**
     * Sets the lock's fence row to the lease's token in the session's transaction, or refuses the
     * transaction if the row holds a newer token. Does nothing when {@link #OFF}.
     *
     * @throws StaleFencingTokenException ({@link Reason#NEWER_HOLDER_WROTE}) if a later holder of
     *     the lock has committed fenced writes
     * @throws OptimisticLockException if the row could not be written because it was created after
     *     this transaction's snapshot (REPEATABLE READ or SERIALIZABLE); a retry succeeds
     * @throws SchemaManagementException if the table is missing
     */
    void advance(SharedSessionContractImplementor session, Lease lease) {
        if (!isOn()) {
            return;
        }
        String lock = lease.lockName();
        long token = lease.token();
        try {
            for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
                int updated = SessionJdbc.update(session, updateSql, s -> {
                    s.setLong(1, token);
                    s.setString(2, lock);
                    s.setLong(3, token);
                });
                if (updated == 1) {
                    return;
                }
                Long current = SessionJdbc.queryLong(session, lockingLookupSql, s -> s.setString(1, lock));
                if (current != null && current > token) {
                    throw newerHolder(lease, current, null);
                }
                if (current != null && current == token) {
                    // a driver that counts changed rather than matched rows reports 0 for an unchanged row
                    return;
                }
                if (current == null && insert(session, lease)) {
                    return;
                }
                // the row appeared or changed between the statements; it is read again from the top
            }
        } catch (JDBCException e) {
            throw translate(e, session, lease);
        }
        throw new OptimisticLockException("The fence row of lock '" + lock + "' in " + table
                + " exists but cannot be written by this transaction: it was created after the transaction's "
                + "snapshot (REPEATABLE READ or SERIALIZABLE); retry the transaction");
    }

    /**
     * Inserts the lock's row inside a savepoint.
     *
     * @return false if another transaction inserted it first; the savepoint was rolled back
     */
    private boolean insert(SharedSessionContractImplementor session, Lease lease) {
        Connection connection =
                session.getJdbcCoordinator().getLogicalConnection().getPhysicalConnection();
        Savepoint savepoint = null;
        try {
            savepoint = connection.setSavepoint();
            try (PreparedStatement statement = connection.prepareStatement(insertSql)) {
                statement.setString(1, lease.lockName());
                statement.setLong(2, lease.token());
                statement.executeUpdate();
            }
            connection.releaseSavepoint(savepoint);
            return true;
        } catch (SQLException e) {
            if (savepoint != null) {
                try {
                    connection.rollback(savepoint);
                } catch (SQLException rollbackFailure) {
                    // a deadlock rolled the whole transaction back, savepoint included
                    e.addSuppressed(rollbackFailure);
                }
            }
            if (isUniqueViolation(e)) {
                Long committed = isolatedLookup(session, lease.lockName());
                if (committed != null && committed > lease.token()) {
                    throw newerHolder(lease, committed, e);
                }
                return false;
            }
            throw session.getJdbcServices()
                    .getSqlExceptionHelper()
                    .convert(e, "could not insert the fence row of lock '" + lease.lockName() + "'", insertSql);
        }
    }

    /** The table has one constraint, its primary key, so any integrity violation is a duplicate row. */
    private static boolean isUniqueViolation(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("23");
    }

    private RuntimeException translate(JDBCException failure, SharedSessionContractImplementor session, Lease lease) {
        if (failure instanceof SQLGrammarException) {
            return new SchemaManagementException(missingTable(), failure);
        }
        if (!ConcurrencyFailures.isConcurrencyFailure(failure)) {
            return failure;
        }
        Long committed;
        try {
            committed = isolatedLookup(session, lease.lockName());
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
            return failure;
        }
        return committed != null && committed > lease.token() ? newerHolder(lease, committed, failure) : failure;
    }

    private Long isolatedLookup(SharedSessionContractImplementor session, String lock) {
        return SessionJdbc.isolatedQueryLong(session, lookupSql, s -> s.setString(1, lock));
    }

    private static StaleFencingTokenException newerHolder(Lease lease, long current, Throwable cause) {
        return new StaleFencingTokenException(
                Reason.NEWER_HOLDER_WROTE,
                lease.lockName(),
                null,
                null,
                null,
                lease.token(),
                current,
                "a later holder of the lock has committed fenced writes; the transaction is rolled back",
                cause);
    }

    /**
     * Checks that the table exists with its two columns, on a connection of the application's.
     *
     * @throws SchemaManagementException if it does not
     */
    void requireTable(Connection connection) {
        try (Statement statement = connection.createStatement()) {
            statement
                    .executeQuery("select lock_name, token from " + table + " where 1=0")
                    .close();
        } catch (SQLException e) {
            throw new SchemaManagementException(missingTable() + " (" + e.getMessage() + ")", e);
        }
    }

    private String missingTable() {
        return "The lock-fence table '" + table + "' (" + FencingSettings.LOCK_FENCE
                + "=true) is missing or lacks its columns lock_name and token; create it with "
                + "CREATE TABLE " + table + " (lock_name VARCHAR(256) NOT NULL, token BIGINT NOT NULL, "
                + "PRIMARY KEY (lock_name)), with a binary no-pad collation for lock_name on MariaDB/MySQL "
                + "(see docs/fencing-jpa.md), or switch the lock fence off";
    }
}
