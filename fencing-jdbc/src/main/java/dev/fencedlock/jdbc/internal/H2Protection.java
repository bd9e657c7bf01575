package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Protects H2 tables with {@link H2FenceTrigger}; also H2's {@code FENCEDLOCK_PROTECT} alias
 * (created by the migration at {@code classpath:db/fencedlock/h2}). Stateless.
 */
public final class H2Protection {
    private H2Protection() {}

    /**
     * Creates the trigger on {@code table} unless it exists ({@code FENCEDLOCK_<TABLE>} in the
     * table's schema). H2 passes the calling session's connection to an alias.
     */
    public static void protect(Connection connection, String table) throws SQLException {
        TableNames.requireValid(table);
        int dot = table.indexOf('.');
        String prefix = dot < 0 ? "" : table.substring(0, dot + 1);
        String name = dot < 0 ? table : table.substring(dot + 1);
        try (Statement statement = connection.createStatement()) {
            statement.execute("create trigger if not exists " + prefix + triggerName(name)
                    + " before insert, update, delete on " + table + " call '" + H2FenceTrigger.class.getName() + "'");
        }
    }

    /** Whether {@code table} has a trigger that calls {@link H2FenceTrigger}. */
    public static boolean isProtected(Connection connection, String table) throws SQLException {
        TableNames.requireValid(table);
        int dot = table.indexOf('.');
        String sql = "select count(*) from information_schema.triggers where java_class = ?"
                + " and upper(event_object_table) = upper(?)"
                + (dot < 0 ? " and event_object_schema = schema()" : " and upper(event_object_schema) = upper(?)");
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, H2FenceTrigger.class.getName());
            statement.setString(2, dot < 0 ? table : table.substring(dot + 1));
            if (dot >= 0) {
                statement.setString(3, table.substring(0, dot));
            }
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() && rows.getInt(1) > 0;
            }
        }
    }

    static String triggerName(String table) {
        return "fencedlock_" + table;
    }
}
