package dev.fencedlock.jdbc.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
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
    /** The mark read last and its parts: a session keeps the same mark value for a whole transaction. */
    private volatile ParsedMark lastParsed;

    private record ParsedMark(Value text, Mark mark) {}

    private static final Optional<Boolean> YES = Optional.of(true);
    private static final Optional<Boolean> NO = Optional.of(false);

    private H2SessionMarks(String fencedName, String unfencedName) {
        this.fencedName = fencedName;
        this.unfencedName = unfencedName;
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
                        variableName(session, H2Fence.MARK), variableName(session, H2FenceTrigger.BYPASS)));
            }
        } catch (LinkageError e) {
            // an H2 without these classes or methods: the trigger falls back to its query
        }
        return Optional.empty();
    }

    /** What {@link #lockHolding} did. */
    enum EngineLock {
        /** The session is not embedded in this JVM (or its engine is not the one known): nothing done. */
        REMOTE,
        /** The row held the token; it is locked and the transaction marked. */
        LOCKED_AND_MARKED,
        /** The row is missing or holds another token (it may be locked now): the guard's statements decide. */
        NOT_LOCKED
    }

    /**
     * The guard's row lock without a statement where {@code connection}'s session is embedded and
     * the row already holds {@code token} ({@link H2FenceRows#lockHolding}), and then the mark
     * ({@link #markFenced}).
     *
     * @throws SQLException a lock timeout or deadlock while waiting for the row, as H2 reports them
     */
    static EngineLock lockHolding(Connection connection, String table, String lockName, long token)
            throws SQLException {
        SessionLocal session = embedded(connection);
        if (session == null) {
            return EngineLock.REMOTE;
        }
        try {
            H2FenceRows rows = H2FenceRows.resolve(session, table);
            if (rows == null || !rows.lockHolding(session, lockName, token)) {
                return EngineLock.NOT_LOCKED;
            }
        } catch (LinkageError e) {
            // an engine shaped otherwise than H2 2.5's: the statements decide
            return EngineLock.NOT_LOCKED;
        }
        markFenced(session, token, table, lockName);
        return EngineLock.LOCKED_AND_MARKED;
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
     * fence guard of {@code lockName} with {@code token} on fence table {@code table}: sets the
     * session's {@link H2Fence#MARK mark} to the transaction's number followed by {@link
     * #markSuffix}, in the JVM, without a statement. Call only after the guard raised or locked the
     * row.
     *
     * @return false, having changed nothing, if the session is not embedded
     */
    static boolean markFenced(Connection connection, long token, String table, String lockName) {
        SessionLocal session = embedded(connection);
        if (session == null) {
            return false;
        }
        markFenced(session, token, table, lockName);
        return true;
    }

    /**
     * {@link #markFenced(Connection, long, String, String)} on a session in hand. The mark's parts
     * are remembered with the value set, so that the trigger, which meets this very value in the
     * transaction's write statements, need not parse it.
     */
    static void markFenced(SessionLocal session, long token, String table, String lockName) {
        long transaction = session.getTransaction().getSequenceNum();
        Value mark = text(transaction + markSuffix(token, table, lockName));
        session.setVariable(markName(session.getDatabase()), mark);
        lastSet = new ParsedMark(mark, new Mark(transaction, token, table, lockName));
    }

    /** The mark the guard set last in this JVM, with its parts. */
    private static volatile ParsedMark lastSet;

    /**
     * H2's {@code VARCHAR} value of {@code text}, made directly: {@code ValueVarchar.get} passes every
     * text through two process-wide caches, which a mark (new text in every transaction) only
     * churns, and which cost the guard more than the rest of the mark (JFR).
     * {@code ValueVarchar.get} where H2's constructor cannot be reached.
     */
    private static Value text(String text) {
        if (NEW_VARCHAR != null) {
            try {
                return (Value) NEW_VARCHAR.invokeExact(text);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException("H2's VARCHAR constructor failed", e);
            }
        }
        return ValueVarchar.get(text);
    }

    /** {@code new ValueVarchar(String)} as a {@code Value}, null where H2 does not let it be reached. */
    private static final MethodHandle NEW_VARCHAR = varcharConstructor();

    private static MethodHandle varcharConstructor() {
        try {
            return MethodHandles.privateLookupIn(ValueVarchar.class, MethodHandles.lookup())
                    .findConstructor(ValueVarchar.class, MethodType.methodType(void.class, String.class))
                    .asType(MethodType.methodType(Value.class, String.class));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // another H2 or a module that does not open it: the cached factory
            return null;
        }
    }

    /** The database whose name of the mark {@link #lastMarkName} holds. */
    private static volatile MarkName lastMarkName;

    private record MarkName(org.h2.engine.Database database, String name) {}

    /** {@link H2Fence#MARK} as {@code database} folds it, remembered for the database asked last. */
    private static String markName(org.h2.engine.Database database) {
        MarkName known = lastMarkName;
        if (known != null && known.database() == database) {
            return known.name();
        }
        String name = database.sysIdentifier(H2Fence.MARK.substring(1));
        lastMarkName = new MarkName(database, name);
        return name;
    }

    /** {@code variable} ({@code @NAME}) as {@code session}'s database folds identifiers. */
    private static String variableName(SessionLocal session, String variable) {
        return session.getDatabase().sysIdentifier(variable.substring(1));
    }

    /**
     * The embedded H2 session behind {@code connection} (or the connection it wraps, as a pool's
     * proxy does); null for a remote one, another database's, or an H2 without these classes.
     */
    static SessionLocal embedded(Connection connection) {
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
                    return YES;
                }
                Value mark = session.getVariable(fencedName);
                if (mark.containsNull() || !session.hasPendingTransaction()) {
                    return NO;
                }
                Mark parsed = parsed(mark);
                return parsed != null
                                && parsed.transaction()
                                        == session.getTransaction().getSequenceNum()
                                && holdsFenceRow(session, parsed)
                        ? YES
                        : NO;
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
    private static boolean holdsFenceRow(SessionLocal session, Mark mark) {
        H2FenceRows fence = H2FenceRows.resolve(session, mark.table());
        return fence != null && fence.heldBy(session, mark.lockName());
    }

    /** {@code text}'s parts, parsed once per value the guard set. */
    private Mark parsed(Value text) {
        ParsedMark set = lastSet;
        if (set != null && set.text() == text) {
            return set.mark();
        }
        ParsedMark known = lastParsed;
        if (known != null && known.text() == text) {
            return known.mark();
        }
        Mark mark = Mark.parse(text.getString());
        lastParsed = new ParsedMark(text, mark);
        return mark;
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
