package dev.fencedlock.jpa.internal;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One SQL text's written tables ({@link WrittenTables#of}) and, per fenced table asked about,
 * whether it is an UPDATE of that table that leaves its version column alone. Thread-safe.
 */
final class StatementShape {
    private static final int SHOWN_SQL = 200;

    private final String sql;
    private final Set<String> writtenTables;
    /** Per written table, how messages name a write of it by this statement. */
    private final Map<String, String> writeDescriptions;

    private final Map<VersionCheck, Boolean> leavesVersion = new ConcurrentHashMap<>();
    /** The answer given last: a statement is nearly always asked about one table, the same way. */
    private volatile Answer lastAnswer;

    /** One question {@link #updatesLeavingVersion} answered. */
    private record VersionCheck(String table, String versionColumn, String softDeleteColumn) {}

    private record Answer(String table, String versionColumn, String softDeleteColumn, boolean leavesVersion) {
        boolean answers(String table, String versionColumn, String softDeleteColumn) {
            return same(this.table, table)
                    && same(this.versionColumn, versionColumn)
                    && same(this.softDeleteColumn, softDeleteColumn);
        }

        /** Equal strings; the same instance, as the inspector passes them, decides at once. */
        private static boolean same(String a, String b) {
            return a == b || (a != null && a.equals(b));
        }
    }

    StatementShape(String sql) {
        this.sql = sql;
        this.writtenTables = Collections.unmodifiableSet(WrittenTables.of(sql));
        Map<String, String> descriptions = new HashMap<>();
        for (String table : writtenTables) {
            descriptions.put(
                    table,
                    table.equals(WrittenTables.ANY_TABLE)
                            ? "dynamic SQL, which may write any fenced table [" + shown() + "]"
                            : "statement on fenced table " + table + " [" + shown() + "]");
        }
        this.writeDescriptions = Map.copyOf(descriptions);
    }

    Set<String> writtenTables() {
        return writtenTables;
    }

    /** How messages name this statement's write of {@code table}, one of its {@link #writtenTables}. */
    String writeDescription(String table) {
        return writeDescriptions.get(table);
    }

    /** The statement's text for messages, cut after {@value #SHOWN_SQL} characters. */
    String shown() {
        return sql.length() <= SHOWN_SQL ? sql : sql.substring(0, SHOWN_SQL) + "...";
    }

    /**
     * Whether this is an UPDATE of {@code table} that does not assign {@code versionColumn} and is
     * not a soft delete (an UPDATE that assigns only {@code softDeleteColumn}, null if the table
     * has none).
     */
    boolean updatesLeavingVersion(String table, String versionColumn, String softDeleteColumn) {
        Answer last = lastAnswer;
        if (last != null && last.answers(table, versionColumn, softDeleteColumn)) {
            return last.leavesVersion;
        }
        boolean leaves = leavesVersion.computeIfAbsent(
                new VersionCheck(table, versionColumn, softDeleteColumn),
                k -> WrittenTables.isUpdateOf(sql, table)
                        && !WrittenTables.assigns(sql, versionColumn)
                        && !(softDeleteColumn != null && WrittenTables.assignsOnly(sql, softDeleteColumn)));
        lastAnswer = new Answer(table, versionColumn, softDeleteColumn, leaves);
        return leaves;
    }
}
