package dev.fencedlock.jdbc.internal;

import java.sql.SQLException;
import java.util.Locale;
import java.util.Objects;
import org.h2.engine.DbSettings;
import org.h2.engine.SessionLocal;
import org.h2.index.Cursor;
import org.h2.index.Index;
import org.h2.message.DbException;
import org.h2.mvstore.db.MVPrimaryIndex;
import org.h2.mvstore.db.MVTable;
import org.h2.mvstore.tx.TransactionMap;
import org.h2.result.Row;
import org.h2.result.SearchRow;
import org.h2.schema.Schema;
import org.h2.table.Column;
import org.h2.table.Table;
import org.h2.value.Value;
import org.h2.value.ValueVarchar;

/**
 * A fence table of an H2 database embedded in this JVM, as H2's engine holds it: its row of a lock
 * name, whether the current transaction holds that row ({@link H2SessionMarks}, for the trigger),
 * and the guard's row lock without a statement ({@link #lockHolding}).
 *
 * <p>Relies on H2's engine classes (H2 2.x); a table that is not a plain MVStore table with its
 * primary key on {@code lock_name} alone is not {@link #resolve resolved}, and callers then run
 * their statements instead. Immutable and thread-safe; the last table resolved is remembered until
 * the database's schema changes.
 */
final class H2FenceRows {
    private static volatile H2FenceRows last;

    /** The row looked up last: nearly every lookup asks for the same lock's row again. */
    private volatile KnownRow lastRow;

    /**
     * What a resolution depends on: the database, its schema's version, the name as the guard
     * gives it, and the session's schema an unqualified name was resolved in (null for a qualified
     * one).
     */
    private record Resolution(org.h2.engine.Database database, long metaId, String name, String defaultSchema) {}

    private final Resolution resolution;
    private final MVTable table;
    private final Column lockName;
    private final Column token;
    private final Index key;

    private H2FenceRows(Resolution resolution, MVTable table, Column lockName, Column token, Index key) {
        this.resolution = resolution;
        this.table = table;
        this.lockName = lockName;
        this.token = token;
        this.key = key;
    }

    /**
     * The fence table {@code name} (optionally schema-qualified, as the guard names it) in {@code
     * session}'s database; null if there is no such plain MVStore table with {@code lock_name} as
     * its whole primary key and a {@code token} column.
     */
    static H2FenceRows resolve(SessionLocal session, String name) {
        org.h2.engine.Database database = session.getDatabase();
        int dot = name.indexOf('.');
        long metaId = database.getModificationMetaId();
        String defaultSchema = dot < 0 ? session.getCurrentSchemaName() : null;
        H2FenceRows known = last;
        if (known != null && known.resolves(database, metaId, name, defaultSchema)) {
            return known;
        }
        Resolution resolution = new Resolution(database, metaId, name, defaultSchema);
        Schema schema =
                database.findSchema(dot < 0 ? resolution.defaultSchema() : unquoted(database, name.substring(0, dot)));
        if (schema == null) {
            return null;
        }
        Table found = schema.findTableOrView(session, unquoted(database, name.substring(dot + 1)));
        if (!(found instanceof MVTable fence)) {
            return null;
        }
        Column lockName = fence.findColumn(unquoted(database, "lock_name"));
        Column token = fence.findColumn(unquoted(database, "token"));
        Index key = fence.findPrimaryKey();
        if (lockName == null
                || token == null
                || key == null
                || key.getColumns().length != 1
                || key.getColumns()[0] != lockName) {
            return null;
        }
        H2FenceRows resolved = new H2FenceRows(resolution, fence, lockName, token, key);
        last = resolved;
        return resolved;
    }

    /** Whether this is the resolution of {@code name} in this state of the database, and still valid. */
    private boolean resolves(org.h2.engine.Database database, long metaId, String name, String defaultSchema) {
        return resolution.database() == database
                && resolution.metaId() == metaId
                && resolution.name().equals(name)
                && Objects.equals(resolution.defaultSchema(), defaultSchema)
                && table.isValid();
    }

    /**
     * The row of {@code name} as the session's transaction sees it (the committed row, or its own
     * change), found through the row key it had when last asked for (a row keeps its key while it
     * exists; the name is checked) or else through the primary key; null if there is none.
     */
    Found find(SessionLocal session, String name) {
        TransactionMap<Long, SearchRow> rows = rows(session);
        KnownRow known = lastRow;
        if (known != null && known.name().equals(name)) {
            SearchRow row = rows.getFromSnapshot(known.key());
            if (row != null && name.equals(row.getValue(lockName.getColumnId()).getString())) {
                return new Found(known.key(), row, rows);
            }
        }
        Row search = table.getTemplateRow();
        search.setValue(lockName.getColumnId(), lockName.convert(session, ValueVarchar.get(name)));
        Cursor cursor = key.find(session, search, search, false);
        if (!cursor.next()) {
            return null;
        }
        long rowKey = cursor.getSearchRow().getKey();
        SearchRow row = rows.getFromSnapshot(rowKey);
        if (row == null) {
            return null;
        }
        lastRow = new KnownRow(name, rowKey);
        return new Found(rowKey, row, rows);
    }

    /** A row {@link #find} found: its key, the row, and the map it is in as the transaction sees it. */
    record Found(long key, SearchRow row, TransactionMap<Long, SearchRow> rows) {}

    /** A lock name and the key its row had when last looked up. */
    private record KnownRow(String name, long key) {}

    /** The table's rows as the session's current transaction sees them. */
    private TransactionMap<Long, SearchRow> rows(SessionLocal session) {
        MVPrimaryIndex primary = (MVPrimaryIndex) table.getScanIndex(session);
        return session.getTransaction().openMapX(primary.getMVMap());
    }

    /**
     * Whether the newest version of {@code name}'s row carries the session's current transaction:
     * it changed or locked the row, and no rollback (to a savepoint or whole) took that away.
     */
    boolean heldBy(SessionLocal session, String name) {
        Found found = find(session, name);
        return found != null && found.rows().isSameTransaction(found.key());
    }

    /**
     * The guard's row lock where the row already holds {@code token}, taken in H2's engine as H2's
     * own {@code UPDATE} takes it, but without a statement and without a new version of the row:
     * the table's shared write lock, then the row lock ({@code Table.lockRow}, the lock an {@code
     * UPDATE} or {@code SELECT ... FOR UPDATE} takes before it changes or returns the row), waiting
     * for the session's lock timeout as a statement would. True only if the locked row (its newest
     * committed version, read after the lock was granted) holds exactly {@code token}: the
     * transaction then holds the row until it ends, exactly as after the guard's update.
     *
     * <p>False, and no lock taken, if the row is missing or, as this transaction sees it before
     * locking, holds another token, or if a statement of the session is running; false with the row locked if its token changed while this
     * transaction waited for it (a newer holder raised it). The caller then runs the guard's
     * statements, which find the row either raisable or refuse the token.
     *
     * @throws SQLException H2's lock timeout ({@code 50200}) or deadlock ({@code 40001}) as its
     *     statements report them, or any other failure of the engine
     */
    boolean lockHolding(SessionLocal session, String name, long token) throws SQLException {
        session.lock();
        try {
            if (session.getCurrentCommand() != null) {
                // called from inside a statement of this session (a Java function): leave it to statements
                return false;
            }
            session.waitIfExclusiveModeEnabled();
            session.startStatementWithinTransaction(null);
            try {
                table.lock(session, Table.WRITE_LOCK);
                Found found = find(session, name);
                if (found == null || tokenOf(found.row()) != token) {
                    return false;
                }
                Row search = table.getTemplateRow();
                search.setKey(found.key());
                Row locked = table.lockRow(session, search, -1);
                return locked != null && tokenOf(locked) == token;
            } finally {
                session.endStatement();
            }
        } catch (DbException e) {
            throw e.getSQLException();
        } finally {
            session.unlock();
        }
    }

    private long tokenOf(SearchRow row) {
        Value value = row.getValue(token.getColumnId());
        return value.getLong();
    }

    /** {@code name} as the database folds an unquoted identifier. */
    static String unquoted(org.h2.engine.Database database, String name) {
        DbSettings settings = database.getSettings();
        return settings.databaseToUpper
                ? name.toUpperCase(Locale.ROOT)
                : settings.databaseToLower ? name.toLowerCase(Locale.ROOT) : name;
    }
}
