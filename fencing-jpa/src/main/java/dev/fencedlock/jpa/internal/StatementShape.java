package dev.fencedlock.jpa.internal;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One SQL text's written tables ({@link WrittenTables#of}) and, per fenced table asked about,
 * whether it is an UPDATE of that table that leaves its version column alone. Thread-safe.
 */
final class StatementShape {
    private final String sql;
    private final Set<String> writtenTables;
    private final Map<String, Boolean> leavesVersion = new ConcurrentHashMap<>();

    StatementShape(String sql) {
        this.sql = sql;
        this.writtenTables = Collections.unmodifiableSet(WrittenTables.of(sql));
    }

    Set<String> writtenTables() {
        return writtenTables;
    }

    /**
     * Whether this is an UPDATE of {@code table} that does not assign {@code versionColumn} and is
     * not a soft delete (an UPDATE that assigns only {@code softDeleteColumn}, null if the table
     * has none).
     */
    boolean updatesLeavingVersion(String table, String versionColumn, String softDeleteColumn) {
        String key = table + '\u0000' + versionColumn + '\u0000' + softDeleteColumn;
        return leavesVersion.computeIfAbsent(
                key,
                k -> WrittenTables.isUpdateOf(sql, table)
                        && !WrittenTables.assigns(sql, versionColumn)
                        && !(softDeleteColumn != null && WrittenTables.assignsOnly(sql, softDeleteColumn)));
    }
}
