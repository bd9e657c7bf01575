package dev.fencedlock.jdbc.internal;

import java.util.regex.Pattern;

/** The table names the fence's SQL accepts: plain identifiers, optionally qualified by a schema. */
final class TableNames {
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*(\\.[A-Za-z_][A-Za-z0-9_$]*)?");

    private TableNames() {}

    /**
     * @return {@code table}
     * @throws IllegalArgumentException if {@code table} is null or not such a name
     */
    public static String requireValid(String table) {
        if (table == null || !NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("table must be a table name, optionally qualified by a schema "
                    + "(letters, digits, '_', '$'), got " + (table == null ? "null" : "'" + table + "'"));
        }
        return table;
    }
}
