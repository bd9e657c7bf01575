package dev.fencedlock.jdbc;

import dev.fencedlock.jdbc.internal.TableFence;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Protected tables: the database itself refuses every INSERT, UPDATE, DELETE (and TRUNCATE, where
 * the database runs triggers on it) of a protected table in a transaction whose fence guard has not
 * run, whoever sends it: this application through any API, another application without fencedlock,
 * an operator's console. The client-side checks of fencing-jpa and the Spring starter see only the
 * writes they are shown; the database sees all of them.
 *
 * <p>How, per database:
 *
 * <ul>
 *   <li>PostgreSQL: the fence guard's first statement sets the transaction-local
 *       setting {@code fencedlock.fenced} to the transaction's id ({@code txid_current()}),
 *       token and lock name (in its {@code RETURNING}, so only when it entered; no extra round
 *       trip); a statement-level trigger {@code fencedlock_fence_required} on the table refuses the
 *       statement unless the setting names the current transaction, so a mark set for the
 *       session, on the URL or for a role is worth nothing. {@link #protect} covers the table's
 *       partitions and inheritance children too, adds a row-level trigger that PostgreSQL copies to
 *       partitions attached later, and enables a trigger that was disabled or made replica-only;
 *       it refuses a partition or child whose parent is unprotected. Installed by the migrations at
 *       {@code classpath:db/fencedlock/postgresql} ({@code CALL fencedlock_protect('inventory')})
 *       or by {@link #protect}.
 *   <li>H2: the guard sets the session variable {@code @FENCEDLOCK_FENCED} to the transaction's
 *       number, token, fence table and lock name once its first statement raised the row: on the
 *       session directly where the database is embedded in this JVM, in that statement for a
 *       client of an H2 server; a Java trigger ({@code FENCEDLOCK_<TABLE>}) accepts a write
 *       statement only if the mark names the current transaction and the fence row it names is
 *       locked by this transaction, so a guard undone by {@code ROLLBACK TO SAVEPOINT} or a mark
 *       replayed into a new session is worth nothing. The trigger class is in this module: the
 *       JVM that runs the database (the application's own for an embedded database, the
 *       server's otherwise) needs it on its class path. H2 runs no trigger on TRUNCATE.
 *   <li>MariaDB/MySQL: the guard sets the user variable {@code @fencedlock_fenced} to its token and
 *       lock name in its first statement; a row trigger on each event calls a procedure (with its
 *       definer's privileges) that takes that fence row {@code FOR UPDATE} and refuses the write
 *       unless the row holds exactly that token: a stale holder is refused, and whatever is let
 *       through is ordered by the fence row. The variable outlives the transaction; every adapter
 *       ({@link JdbcFencing}, fencing-jpa, the Spring starter) clears it after the transaction; see {@code
 *       MariaDbFence} and docs/fencing.md for exactly what that leaves. MariaDB runs no trigger
 *       on TRUNCATE or on foreign-key cascades.
 *   <li>Other databases: not supported; {@link #protect} fails rather than pretend.
 * </ul>
 *
 * <p>A deliberate write outside the fence (an operator's fix-up) is {@link #unfenced} from Java; in
 * SQL, {@code SELECT fencedlock_unfenced('<reason>')} first in the transaction on PostgreSQL (a
 * {@code fencedlock.unfenced} set any other way names no transaction and is ignored),
 * {@code SET @FENCEDLOCK_UNFENCED = '<reason>'} for the session on H2 and {@code SET
 * @fencedlock_unfenced = '<reason>'} for the session on MariaDB/MySQL (set it back to NULL after).
 *
 * <p>Stateless and thread-safe.
 */
public final class FencedTables {
    /** The SQLState of a refused write ({@code 23}: an integrity constraint, like a check that failed). */
    public static final String REFUSED_SQLSTATE = "23F01";

    private FencedTables() {}

    /**
     * Protects {@code tables} on the database of {@code dataSource}, in a transaction of its own:
     * installs the trigger function where it is missing and a trigger on each table that has none.
     * Idempotent: protecting a protected table changes nothing.
     *
     * @param tables table names, optionally qualified by a schema (letters, digits, {@code _},
     *     {@code $}), as the database resolves unquoted names
     * @throws IllegalArgumentException if an argument is null, no table is given or a name is not
     *     a plain table name; nothing was changed
     * @throws SQLFeatureNotSupportedException on databases other than PostgreSQL, H2 and
     *     MariaDB/MySQL
     * @throws SQLException if a table does not exist or the database refused the DDL; nothing was
     *     changed
     */
    public static void protect(DataSource dataSource, String... tables) throws SQLException {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        requireTables(tables);
        try (Connection connection = dataSource.getConnection()) {
            protect(connection, tables);
        }
    }

    /**
     * Like {@link #protect(DataSource, String...)}, on {@code connection}, in a transaction of its
     * own (the connection's autocommit setting is restored); the connection stays open.
     *
     * @throws IllegalArgumentException if an argument is null or empty, or a name is not a plain
     *     table name; nothing was changed
     * @throws SQLFeatureNotSupportedException on databases without the mechanism
     * @throws SQLException if a table does not exist or the database refused the DDL; nothing was
     *     changed
     */
    public static void protect(Connection connection, String... tables) throws SQLException {
        if (connection == null) {
            throw new IllegalArgumentException("connection must not be null");
        }
        requireTables(tables);
        inTransaction(connection, c -> {
            for (String table : tables) {
                TableFence.protect(connection, table);
            }
            return null;
        });
    }

    /**
     * The tables among {@code tables} that are not protected, in the order given; empty when all
     * are. A table that does not exist is not protected. On PostgreSQL a table is protected when it,
     * its ancestors and its descendants (partitions, inheritance children) each have the fence's
     * trigger, enabled (not disabled, not replica-only), from the current migration; a
     * partitioned table also needs the row-level trigger copied to partitions added later.
     *
     * @throws IllegalArgumentException if an argument is null or a name is not a plain table name
     * @throws SQLFeatureNotSupportedException on databases without protected tables
     */
    public static List<String> unprotected(Connection connection, Collection<String> tables) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(tables, "tables");
        tables.forEach(TableFence::requireValidName);
        List<String> missing = new ArrayList<>();
        for (String table : tables) {
            if (!TableFence.isProtected(connection, table)) {
                missing.add(table);
            }
        }
        return missing;
    }

    /** Whether the database of {@code connection} can protect tables (PostgreSQL, H2, MariaDB/MySQL). */
    public static boolean isSupported(Connection connection) throws SQLException {
        return TableFence.isSupported(connection);
    }

    /**
     * Runs {@code work} in a transaction that may write protected tables without a fence: an
     * operator's deliberate fix-up. {@code reason} is kept where the database can show it
     * (PostgreSQL: the transaction's {@code fencedlock.unfenced} setting). The connection must have
     * autocommit on; it is committed after the work, rolled back on any failure, and left with
     * autocommit on and (H2, MariaDB/MySQL) the session's bypass cleared.
     *
     * @throws IllegalArgumentException if an argument is null, {@code reason} is blank or the
     *     connection has autocommit off
     * @throws SQLFeatureNotSupportedException on databases without protected tables
     */
    public static <T> T unfenced(Connection connection, String reason, SqlWork<T> work) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(work, "work");
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("reason must say why the write bypasses the fence, got "
                    + (reason == null ? "null" : "'" + reason + "'"));
        }
        if (!connection.getAutoCommit()) {
            throw new IllegalArgumentException(
                    "connection must have autocommit on: the bypass must cover a " + "transaction of its own");
        }
        try {
            return inTransaction(connection, c -> {
                TableFence.allowUnfenced(c, reason);
                return work.run(c);
            });
        } finally {
            TableFence.clearUnfenced(connection);
        }
    }

    private static void requireTables(String... tables) {
        if (tables == null || tables.length == 0) {
            throw new IllegalArgumentException("tables must name at least one table");
        }
        for (String table : tables) {
            TableFence.requireValidName(table);
        }
    }

    private static <T> T inTransaction(Connection connection, SqlWork<T> work) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            T result = work.run(connection);
            connection.commit();
            return result;
        } catch (SQLException | RuntimeException | Error e) {
            try {
                connection.rollback();
            } catch (SQLException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
            }
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }
}
