package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.value.Value;
import org.h2.value.ValueBigint;

/**
 * The fence marks of an embedded H2 session, read and set straight in the JVM, without a
 * statement. The trigger reads whether the session's {@link GuardStatements#H2_MARK mark} holds
 * the current transaction's number, or the operator's {@code @FENCEDLOCK_UNFENCED} bypass is set:
 * the same test as the query {@code coalesce(cast(@FENCEDLOCK_FENCED as varchar) =
 * transaction_id(), false) or @FENCEDLOCK_UNFENCED is not null}, at a fraction of its cost per
 * write. The guard sets the mark ({@link #markFenced}) after its statement raised the row, where
 * the client's session is embedded; a remote client's guard sets it in the statement itself.
 *
 * <p>Relies on H2's engine classes ({@code SessionLocal}, H2 2.x); where they are missing or shaped
 * differently (another H2 version, a connection of a kind it does not know) {@link #of} is empty
 * and the trigger runs the query, and {@link #markFenced} does nothing and the guard marks with a
 * statement. Immutable and thread-safe.
 */
final class H2SessionMarks {
    private final String fencedName;
    private final String unfencedName;

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
                        variableName(session, GuardStatements.H2_MARK), variableName(session, H2FenceTrigger.BYPASS)));
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
     * Marks the current transaction of {@code connection}'s embedded session as having entered the
     * fence guard: sets the session's {@link GuardStatements#H2_MARK mark} to the transaction's
     * number (a BIGINT, the number {@code TRANSACTION_ID()} gives as text), in the JVM, without a
     * statement. Call only after the guard's statement raised the row, so that the transaction has
     * a change and its number is the one {@code TRANSACTION_ID()} reports.
     *
     * @return false, having changed nothing, if the session is not embedded
     */
    static boolean markFenced(Connection connection) {
        SessionLocal session = embedded(connection);
        if (session == null) {
            return false;
        }
        session.setVariable(
                variableName(session, GuardStatements.H2_MARK),
                ValueBigint.get(session.getTransaction().getSequenceNum()));
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
     * Whether the transaction of {@code connection}'s session entered the fence guard or the
     * session bypasses it; empty if the session cannot be read directly. The mark is the
     * transaction's number, as {@link #markFenced} sets it or as text where a statement set it
     * from {@code TRANSACTION_ID()} (a remote client's guard).
     */
    Optional<Boolean> fencedOrBypassed(Connection connection) {
        try {
            SessionLocal session = embedded(connection);
            if (session != null) {
                if (!session.getVariable(unfencedName).containsNull()) {
                    return Optional.of(true);
                }
                Value mark = session.getVariable(fencedName);
                // TRANSACTION_ID() is null until the transaction changes something, else its number
                if (mark.containsNull() || !session.hasPendingTransaction()) {
                    return Optional.of(false);
                }
                long number = session.getTransaction().getSequenceNum();
                return Optional.of(
                        mark.getValueType() == Value.BIGINT
                                ? mark.getLong() == number
                                : isDecimal(mark.getString(), number));
            }
        } catch (LinkageError e) {
            // as in of(): the query decides
        }
        return Optional.empty();
    }

    /** Whether {@code text} is {@code number} (not negative) in decimal without leading zeros; allocates nothing. */
    static boolean isDecimal(String text, long number) {
        if (number < 0) {
            return false;
        }
        int i = text.length();
        long rest = number;
        while (i > 0 && rest >= 0) {
            if (text.charAt(--i) != (char) ('0' + rest % 10)) {
                return false;
            }
            rest = rest < 10 ? -1 : rest / 10;
        }
        return i == 0 && rest < 0;
    }
}
