package dev.fencedlock.jdbc.internal;

import dev.fencedlock.LockException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks, once per database (JDBC URL and user), that a fence table has its primary key on {@code
 * lock_name} and nothing else: the guard's insert of a lock's first row relies on it to make one of
 * two racing first transactions fail. A table made by hand without it would let both in. A missing
 * table is left to the guard's own statement, which says how to create it. Thread-safe.
 */
final class FenceTableShape {
    private final String table;
    private final Set<Target> checked = ConcurrentHashMap.newKeySet();
    /** The database checked last: nearly every call asks about it again, and then costs two reads. */
    private volatile Target last;

    /** One database as the checks tell them apart: its URL and the user connected to it. */
    private record Target(String url, String user) {}

    public FenceTableShape(String table) {
        this.table = table;
    }

    /**
     * @param meta {@code connection}'s metadata
     * @throws LockException if the table exists without a primary key of exactly {@code lock_name}
     */
    public void check(Connection connection, DatabaseMetaData meta, Database database) throws SQLException {
        Target target = last;
        String url = meta.getURL();
        String user = meta.getUserName();
        if (target != null && Objects.equals(target.url, url) && Objects.equals(target.user, user)) {
            return;
        }
        target = new Target(url, user);
        if (checked.contains(target)) {
            last = target;
            return;
        }
        String[] parts = table.split("\\.", 2);
        String schema = parts.length == 2 ? parts[0] : null;
        String name = parts.length == 2 ? parts[1] : parts[0];
        String catalog = database == Database.MARIADB ? (schema != null ? schema : connection.getCatalog()) : null;
        String schemaPattern = database == Database.MARIADB ? null : schema;
        for (String candidate : new String[] {name, name.toLowerCase(Locale.ROOT), name.toUpperCase(Locale.ROOT)}) {
            if (!exists(meta, catalog, schemaPattern, candidate)) {
                continue;
            }
            List<String> columns = primaryKey(meta, catalog, schemaPattern, candidate);
            if (columns.size() != 1 || !columns.get(0).equalsIgnoreCase("lock_name")) {
                throw new LockException("The fence table " + table + " has "
                        + (columns.isEmpty() ? "no primary key" : "primary key " + columns)
                        + ", not a primary key on lock_name alone: two first transactions of one lock could both"
                        + " insert its row, so the fence guard refuses to run. Create the table as"
                        + " classpath:db/fencedlock/migration/V1__fencedlock_fence.sql does, or add the key: ALTER"
                        + " TABLE " + table + " ADD PRIMARY KEY (lock_name)");
            }
            checked.add(target);
            last = target;
            return;
        }
    }

    private static boolean exists(DatabaseMetaData meta, String catalog, String schema, String name)
            throws SQLException {
        try (ResultSet tables = meta.getTables(catalog, schema, name, null)) {
            while (tables.next()) {
                if (tables.getString("TABLE_NAME").equals(name)
                        && (schema != null || isCurrentSchema(meta, tables.getString("TABLE_SCHEM")))) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Without a schema, the guard's statements find the table on the search path; approximated by the connection's schema. */
    private static boolean isCurrentSchema(DatabaseMetaData meta, String schema) throws SQLException {
        String current = meta.getConnection().getSchema();
        return schema == null || current == null || schema.equalsIgnoreCase(current);
    }

    private static List<String> primaryKey(DatabaseMetaData meta, String catalog, String schema, String name)
            throws SQLException {
        List<String> columns = new ArrayList<>();
        String current = schema != null ? schema : meta.getConnection().getSchema();
        try (ResultSet keys = meta.getPrimaryKeys(catalog, catalog != null ? null : current, name)) {
            while (keys.next()) {
                columns.add(keys.getString("COLUMN_NAME"));
            }
        }
        return columns;
    }
}
