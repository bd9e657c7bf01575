package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;
import org.h2.engine.DbSettings;
import org.h2.engine.SessionLocal;
import org.h2.index.Cursor;
import org.h2.index.Index;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.db.MVPrimaryIndex;
import org.h2.mvstore.db.MVTable;
import org.h2.result.Row;
import org.h2.schema.Schema;
import org.h2.table.Column;
import org.h2.table.Table;
import org.h2.value.Value;
import org.h2.value.ValueVarchar;

/**
 * The fence marks of an H2 session, read and set straight in the JVM, without a statement. A mark
 * ({@link H2Fence#MARK}) is text: the transaction's number, the token, the fence table
 * and the lock name ({@link #mark}). The trigger accepts a write only if the number is the current
 * transaction's and the fence row it names is locked by this very transaction: a mark whose guard
 * was undone by {@code ROLLBACK TO SAVEPOINT} (the row lock goes with it), one left from an earlier
 * transaction, or one replayed by {@code AUTO_RECONNECT} into a new session whose transaction
 * happens to draw the same number, is worth nothing. The guard sets the mark ({@link #markFenced})
 * after its statement raised the row, where the client's session is embedded; a remote client's
 * guard sets it in the statement itself.
 *
 * <p>Relies on H2's engine classes ({@code SessionLocal}, {@code MVTable}, {@code TransactionMap},
 * H2 2.x); where they are missing or shaped differently (another H2 version, a connection of a kind
 * it does not know) {@link #of} is empty and the trigger runs its query, and {@link #markFenced}
 * does nothing and the guard marks with a statement. Immutable and thread-safe.
 */
final class H2SessionMarks {
    private final String fencedName;
    private final String unfencedName;
    private final String lockNameColumn;

    private H2SessionMarks(String fencedName, String unfencedName, String lockNameColumn) {
        this.fencedName = fencedName;
        this.unfencedName = unfencedName;
        this.lockNameColumn = lockNameColumn;
    }

    /**
     * The marks as the database behind {@code connection} names its variables (upper case unless
     * it folds identifiers otherwise); empty if the session cannot be read directly.
     */
    static Optional<H2SessionMarks> of(Connection connection) {
        try {
            SessionLocal session = embedded(connection);
            if (session != null) {
                return Optional.of(new H2SessionMarks(
                        variableName(session, H2Fence.MARK),
                        variableName(session, H2FenceTrigger.BYPASS),
                        unquoted(session.getDatabase(), "lock_name")));
            }
        } catch (LinkageError e) {
            // an H2 without these classes or methods: the trigger falls back to its query
        }
        return Optional.empty();
    }

    /**
     * Whether {@code connection} (or the connection it wraps, as a pool's proxy does) runs an
     * embedded H2 session that {@link #markFenced} can mark without a statement.
     */
    static boolean isEmbedded(Connection connection) {
        return embedded(connection) != null;
    }

    /**
     * What follows the transaction's number in a mark: {@code " <token> <table> <lockName>"}, the
     * lock name last since it may hold spaces.
     */
    static String markSuffix(long token, String table, String lockName) {
        return " " + token + " " + table + " " + lockName;
    }

    /**
     * Marks the current transaction of {@code connection}'s embedded session as having entered the
     * fence guard: sets the session's {@link H2Fence#MARK mark} to the transaction's
     * number followed by {@code suffix} ({@link #markSuffix}), in the JVM, without a statement.
     * Call only after the guard's statement raised or locked the row.
     *
     * @return false, having changed nothing, if the session is not embedded
     */
    static boolean markFenced(Connection connection, String suffix) {
        SessionLocal session = embedded(connection);
        if (session == null) {
            return false;
        }
        session.setVariable(
                variableName(session, H2Fence.MARK),
                ValueVarchar.get(session.getTransaction().getSequenceNum() + suffix));
        return true;
    }

    /** {@code variable} ({@code @NAME}) as {@code session}'s database folds identifiers. */
    private static String variableName(SessionLocal session, String variable) {
        return session.getDatabase().sysIdentifier(variable.substring(1));
    }

    private static SessionLocal embedded(Connection connection) {
        try {
            JdbcConnection jdbc = connection instanceof JdbcConnection direct
                    ? direct
                    : connection.isWrapperFor(JdbcConnection.class) ? connection.unwrap(JdbcConnection.class) : null;
            return jdbc != null && jdbc.getSession() instanceof SessionLocal session ? session : null;
        } catch (SQLException | LinkageError e) {
            // a wrapper that cannot say, or an H2 without these classes: marked by a statement instead
            return null;
        }
    }

    /**
     * Whether the transaction of {@code connection}'s session entered the fence guard (its mark
     * names this transaction, and the fence row it names is locked by this transaction) or the
     * session bypasses it; empty if the session cannot be read directly.
     */
    Optional<Boolean> fencedOrBypassed(Connection connection) {
        try {
            SessionLocal session = embedded(connection);
            if (session != null) {
                if (!session.getVariable(unfencedName).containsNull()) {
                    return Optional.of(true);
                }
                Value mark = session.getVariable(fencedName);
                if (mark.containsNull() || !session.hasPendingTransaction()) {
                    return Optional.of(false);
                }
                Mark parsed = Mark.parse(mark.getString());
                return Optional.of(parsed != null
                        && parsed.transaction() == session.getTransaction().getSequenceNum()
                        && holdsFenceRow(session, parsed));
            }
        } catch (LinkageError | ClassCastException e) {
            // as in of(): the query decides
        }
        return Optional.empty();
    }

    /**
     * Whether the fence row {@code mark} names is changed or locked by the session's current
     * transaction: its newest version in the table's map carries this transaction's id, which a
     * rollback (to a savepoint or whole) takes away with the change.
     */
    private boolean holdsFenceRow(SessionLocal session, Mark mark) {
        org.h2.engine.Database database = session.getDatabase();
        int dot = mark.table().indexOf('.');
        Schema schema = database.findSchema(
                dot < 0
                        ? session.getCurrentSchemaName()
                        : unquoted(database, mark.table().substring(0, dot)));
        if (schema == null) {
            return false;
        }
        Table table =
                schema.findTableOrView(session, unquoted(database, mark.table().substring(dot + 1)));
        if (!(table instanceof MVTable fence)) {
            return false;
        }
        Column column = fence.findColumn(lockNameColumn);
        Index key = fence.findPrimaryKey();
        if (column == null || key == null || key.getColumns().length != 1 || key.getColumns()[0] != column) {
            return false;
        }
        Row search = fence.getTemplateRow();
        search.setValue(column.getColumnId(), column.convert(session, ValueVarchar.get(mark.lockName())));
        Cursor cursor = key.find(session, search, search, false);
        if (!cursor.next()) {
            return false;
        }
        long rowKey = cursor.getSearchRow().getKey();
        MVPrimaryIndex rows = (MVPrimaryIndex) fence.getScanIndex(session);
        return session.getTransaction().openMapX(rows.getMVMap()).isSameTransaction(rowKey);
    }

    /** {@code name} as the database folds an unquoted identifier. */
    private static String unquoted(org.h2.engine.Database database, String name) {
        DbSettings settings = database.getSettings();
        return settings.databaseToUpper
                ? name.toUpperCase(Locale.ROOT)
                : settings.databaseToLower ? name.toLowerCase(Locale.ROOT) : name;
    }

    /** A mark's parts; null where the text is not a mark. */
    record Mark(long transaction, long token, String table, String lockName) {
        static Mark parse(String text) {
            int first = text.indexOf(' ');
            int second = first < 0 ? -1 : text.indexOf(' ', first + 1);
            int third = second < 0 ? -1 : text.indexOf(' ', second + 1);
            if (third < 0) {
                return null;
            }
            try {
                return new Mark(
                        Long.parseLong(text, 0, first, 10),
                        Long.parseLong(text, first + 1, second, 10),
                        text.substring(second + 1, third),
                        text.substring(third + 1));
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }
}
