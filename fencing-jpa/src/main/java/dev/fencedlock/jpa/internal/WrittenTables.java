package dev.fencedlock.jpa.internal;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which tables a SQL statement writes, and whether an UPDATE assigns a given column, read from the
 * statement's text. Covers what Hibernate renders and ordinary hand-written DML: {@code INSERT
 * [INTO]}, {@code UPDATE}, {@code DELETE [alias] FROM}, {@code MERGE INTO}, {@code REPLACE INTO},
 * {@code TRUNCATE [TABLE]}, also inside a {@code WITH} statement, after leading comments. Table
 * names are compared without schema, quotes or case. Stored procedure calls are not looked into.
 * Stateless.
 */
final class WrittenTables {
    private static final String NAME = "((?:[`\"\\[]?[\\w$]+[`\"\\]]?\\.)*[`\"\\[]?[\\w$]+[`\"\\]]?)";
    private static final Pattern LEADING_COMMENTS =
            Pattern.compile("\\A(?:\\s+|/\\*.*?\\*/|--[^\\n]*\\n?)*", Pattern.DOTALL);
    private static final Pattern WRITE = Pattern.compile(
            "\\b(?:insert(?:\\s+ignore)?(?:\\s+into)?|replace(?:\\s+into)?|merge\\s+into|update(?:\\s+only)?"
                    + "|delete(?:\\s+[\\w$]+)?\\s+from|truncate(?:\\s+table)?)\\s+" + NAME,
            Pattern.CASE_INSENSITIVE);
    private static final Set<String> WRITING_KEYWORDS =
            Set.of("insert", "update", "delete", "merge", "replace", "truncate", "with");

    private WrittenTables() {}

    /** The normalised names of the tables {@code sql} writes; empty for a read or an unknown statement. */
    static Set<String> of(String sql) {
        String statement = LEADING_COMMENTS.matcher(sql).replaceFirst("");
        String keyword = firstKeyword(statement);
        if (!WRITING_KEYWORDS.contains(keyword)) {
            return Set.of();
        }
        Set<String> tables = new LinkedHashSet<>();
        Matcher matcher = WRITE.matcher(statement);
        int from = 0;
        while (matcher.find(from)) {
            tables.add(normalise(matcher.group(1)));
            if (!keyword.equals("with")) {
                break;
            }
            from = matcher.end();
        }
        return tables;
    }

    /** Whether {@code sql} is an UPDATE statement. */
    static boolean isUpdate(String sql) {
        return firstKeyword(LEADING_COMMENTS.matcher(sql).replaceFirst("")).equals("update");
    }

    private static String firstKeyword(String statement) {
        int end = 0;
        while (end < statement.length() && Character.isLetter(statement.charAt(end))) {
            end++;
        }
        return statement.substring(0, end).toLowerCase(Locale.ROOT);
    }

    /** A table name as {@link #of} returns it: unqualified, unquoted, lower case. */
    static String normalise(String table) {
        String name = table.substring(table.lastIndexOf('.') + 1);
        return name.replaceAll("[`\"\\[\\]]", "").toLowerCase(Locale.ROOT);
    }

    /**
     * Whether the SET clause of UPDATE statement {@code sql} assigns {@code column} (plain or
     * alias-qualified) outside parentheses, between the first {@code set} and the first {@code
     * where} outside parentheses.
     */
    static boolean assigns(String sql, String column) {
        String lower = sql.toLowerCase(Locale.ROOT);
        Matcher set = Pattern.compile("\\sset\\s").matcher(lower);
        if (!set.find()) {
            return false;
        }
        // the assignments at parenthesis depth 0: a subquery's conditions are not assignments
        StringBuilder assignments = new StringBuilder(" ");
        int depth = 0;
        for (int i = set.end(); i < lower.length(); i++) {
            char c = lower.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (depth == 0 && lower.startsWith("where", i) && Character.isWhitespace(lower.charAt(i - 1))) {
                break;
            }
            assignments.append(depth == 0 && c != ')' ? c : ' ');
        }
        return Pattern.compile("[\\s,.`\"]" + Pattern.quote(column.toLowerCase(Locale.ROOT)) + "[`\"]?\\s*=")
                .matcher(assignments)
                .find();
    }
}
