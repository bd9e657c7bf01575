package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * H2's {@code FENCEDLOCK_PROTECT} alias (created by the migration at {@code
 * classpath:db/fencedlock/h2}): databases keep this class's name, so it stays as the entry point;
 * the protection itself is {@link H2Fence#protect}. Stateless.
 */
public final class H2Protection {
    private H2Protection() {}

    /** Protects {@code table}; H2 passes the calling session's connection to an alias. */
    public static void protect(Connection connection, String table) throws SQLException {
        TableNames.requireValid(table);
        new H2Fence("fencedlock_fence").protect(connection, table);
    }
}
