package dev.fencedlock.jdbc.internal;

import dev.fencedlock.jdbc.FenceTable;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The database-side protection of tables ({@code FencedTables}): each operation dispatched to the
 * connection's database, whose {@link GuardStatements} subclass owns the DDL, the check and the
 * operator's bypass. For fencing-jdbc's public classes only; not part of the API. Stateless.
 */
public final class TableFence {
    private TableFence() {}

    /** Protects {@code table}, inside the caller's transaction. Idempotent. */
    public static void protect(Connection connection, String table) throws SQLException {
        statements(connection).protect(connection, table);
    }

    /** Whether {@code table} is protected and its protection enabled. */
    public static boolean isProtected(Connection connection, String table) throws SQLException {
        return statements(connection).isProtected(connection, table);
    }

    /** Whether protected tables are supported on {@code connection}'s database. */
    public static boolean isSupported(Connection connection) throws SQLException {
        return Database.of(connection) != Database.OTHER;
    }

    /** Lets the transaction on {@code connection} write protected tables unfenced, naming {@code reason}. */
    public static void allowUnfenced(Connection connection, String reason) throws SQLException {
        statements(connection).allowUnfenced(connection, reason);
    }

    /** Ends what {@link #allowUnfenced} allowed, where it outlives the transaction. */
    public static void clearUnfenced(Connection connection) throws SQLException {
        statements(connection).clearUnfenced(connection);
    }

    /**
     * @return {@code table}
     * @throws IllegalArgumentException if {@code table} is null or not a table name, optionally
     *     qualified by a schema (letters, digits, {@code _}, {@code $})
     */
    public static String requireValidName(String table) {
        return TableNames.requireValid(table);
    }

    private static GuardStatements statements(Connection connection) throws SQLException {
        return GuardStatements.of(Database.of(connection), FenceTable.DEFAULT_NAME);
    }
}
