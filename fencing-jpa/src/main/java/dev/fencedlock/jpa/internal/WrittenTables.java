package dev.fencedlock.jpa.internal;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which tables a SQL statement may write, and whether an UPDATE assigns a given column, read from
 * the statement's text. It fails closed: a statement counts as a write when its first keyword is a
 * writing one ({@code INSERT}, {@code UPDATE}, {@code DELETE}, {@code MERGE}, {@code REPLACE},
 * {@code TRUNCATE}, {@code COPY}, {@code LOAD}, or {@code WITH} and {@code EXPLAIN} when a writing
 * keyword follows), and then every name in it, outside comments and string literals, counts as a
 * table it may write: modifiers ({@code LOW_PRIORITY}, {@code IGNORE}, {@code ONLY}), comments
 * between keyword and table, multi-table {@code UPDATE ... JOIN} and {@code DELETE t FROM ...}, and
 * data-modifying {@code WITH} need no grammar of their own. A column or alias that shares a fenced
 * table's name makes the statement count as writing that table too: refused outside a fenced
 * transaction rather than let through. MariaDB/MySQL executable comments ({@code /*!...*}{@code /})
 * are read as the statement text they are; dynamic SQL ({@code EXECUTE IMMEDIATE}, {@code PREPARE},
 * {@code EXECUTE}) counts as writing every table ({@link #ANY_TABLE}). Names are compared without
 * schema, quotes or case. Stored procedure calls are not looked into. Stateless.
 */
final class WrittenTables {
    /**
     * MariaDB/MySQL executable comments ({@code /*!...*}{@code /}, {@code /*!50000 ...*}{@code /},
     * {@code /*M!100000 ...*}{@code /}): the server runs what is inside, so it is read as text.
     */
    private static final Pattern EXECUTABLE_COMMENTS = Pattern.compile("/\\*M?!\\d*(.*?)\\*/", Pattern.DOTALL);

    private static final Pattern COMMENTS = Pattern.compile("/\\*.*?\\*/|--[^\\n]*", Pattern.DOTALL);
    private static final Pattern STRINGS = Pattern.compile("'(?:[^']|'')*'");
    private static final Pattern NAME = Pattern.compile("[`\"\\[]?([\\w$]+)[`\"\\]]?");
    private static final Pattern WRITING_WORD =
            Pattern.compile("\\b(?:insert|update|delete|merge|replace|truncate)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern UPDATE_WORD = Pattern.compile("\\bupdate\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern SET_WORD = Pattern.compile("\\bset\\b", Pattern.CASE_INSENSITIVE);
    private static final Set<String> WRITING_KEYWORDS =
            Set.of("insert", "update", "delete", "merge", "replace", "truncate", "copy", "load");
    private static final Set<String> PREFIX_KEYWORDS = Set.of("with", "explain");
    /** Statements that run SQL built at run time ({@code EXECUTE IMMEDIATE}, {@code PREPARE ... FROM}, {@code EXECUTE}). */
    private static final Set<String> DYNAMIC_KEYWORDS = Set.of("execute", "prepare");

    /**
     * What {@link #of} returns for dynamic SQL: it may write any table, since its text may be built
     * at run time ({@code concat}) where no reading of the statement can follow it.
     */
    static final String ANY_TABLE = "*";

    private WrittenTables() {}

    /**
     * The normalised names in {@code sql} if it may write (every one of them a table it may
     * write); empty for a read or a statement of another kind.
     */
    static Set<String> of(String sql) {
        String statement = text(sql);
        if (DYNAMIC_KEYWORDS.contains(firstKeyword(statement))) {
            return Set.of(ANY_TABLE);
        }
        if (!isWrite(statement)) {
            return Set.of();
        }
        Set<String> names = new LinkedHashSet<>();
        Matcher matcher = NAME.matcher(statement);
        while (matcher.find()) {
            names.add(matcher.group(1).toLowerCase(Locale.ROOT));
        }
        return names;
    }

    /**
     * Whether {@code sql} may update rows: a writing statement with an {@code UPDATE} anywhere
     * ({@code UPDATE}, {@code WITH ... UPDATE}, {@code EXPLAIN ANALYZE UPDATE}, an upsert's {@code
     * DO UPDATE} or {@code ON DUPLICATE KEY UPDATE}).
     */
    static boolean isUpdate(String sql) {
        String statement = text(sql);
        return isWrite(statement) && UPDATE_WORD.matcher(statement).find();
    }

    /**
     * Whether {@code sql} may update rows of {@code table} (a normalised name): it {@link #isUpdate
     * may update}, and names the table before its first {@code SET} (the tables an UPDATE changes
     * come before it; a subquery after it only reads), or has no {@code SET} at all (an upsert's
     * {@code ON DUPLICATE KEY UPDATE}).
     */
    static boolean isUpdateOf(String sql, String table) {
        String statement = text(sql);
        if (!isWrite(statement) || !UPDATE_WORD.matcher(statement).find()) {
            return false;
        }
        Matcher set = SET_WORD.matcher(statement);
        String head = set.find() ? statement.substring(0, set.start()) : statement;
        Matcher names = NAME.matcher(head);
        while (names.find()) {
            if (names.group(1).equalsIgnoreCase(table)) {
                return true;
            }
        }
        return !set.find(0);
    }

    /** The statement without comments (executable ones read as text) and string literals, trimmed. */
    private static String text(String sql) {
        String unwrapped =
                sql.indexOf("/*") < 0 ? sql : EXECUTABLE_COMMENTS.matcher(sql).replaceAll(" $1 ");
        String withoutComments = COMMENTS.matcher(unwrapped).replaceAll(" ");
        return STRINGS.matcher(withoutComments).replaceAll("''").strip();
    }

    private static boolean isWrite(String statement) {
        String keyword = firstKeyword(statement);
        return WRITING_KEYWORDS.contains(keyword)
                || (PREFIX_KEYWORDS.contains(keyword)
                        && WRITING_WORD.matcher(statement).find());
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
        String assignments = assignments(sql);
        return assignments != null
                && Pattern.compile("[\\s,.`\"]" + Pattern.quote(column.toLowerCase(Locale.ROOT)) + "[`\"]?\\s*=")
                        .matcher(assignments)
                        .find();
    }

    /**
     * Whether the SET clause of UPDATE statement {@code sql} assigns {@code column} (plain or
     * alias-qualified) and nothing else, as Hibernate's soft delete does.
     */
    static boolean assignsOnly(String sql, String column) {
        String assignments = assignments(sql);
        if (assignments == null || !assigns(sql, column)) {
            return false;
        }
        Pattern target = Pattern.compile(
                "\\s*(?:[`\"]?[\\w$]+[`\"]?\\.)?[`\"]?" + Pattern.quote(column.toLowerCase(Locale.ROOT))
                        + "[`\"]?\\s*=.*",
                Pattern.DOTALL);
        for (String assignment : assignments.split(",")) {
            if (!target.matcher(assignment).matches()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The SET clause of UPDATE statement {@code sql}, lower case, from the first {@code set} to the
     * first {@code where} outside parentheses, with what is inside parentheses blanked (a
     * subquery's conditions and commas are not assignments); null if it has no SET.
     */
    private static String assignments(String sql) {
        // a version assignment inside a plain comment assigns nothing
        String lower = " " + text(sql).toLowerCase(Locale.ROOT);
        Matcher set = Pattern.compile("\\sset\\s").matcher(lower);
        if (!set.find()) {
            return null;
        }
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
        return assignments.toString();
    }
}
