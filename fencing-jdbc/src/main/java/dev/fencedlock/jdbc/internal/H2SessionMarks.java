package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.util.Optional;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.value.Value;

/**
 * Reads the fence marks of the session that fires a trigger straight from H2's embedded session,
 * without running a query: whether the session's {@link GuardStatements#H2_MARK mark} holds the
 * current transaction's id, or the operator's {@code @FENCEDLOCK_UNFENCED} bypass is set. The same
 * test as the query {@code coalesce(@FENCEDLOCK_FENCED = transaction_id(), false) or
 * @FENCEDLOCK_UNFENCED is not null}, at a fraction of its cost per write.
 *
 * <p>Relies on H2's engine classes ({@code SessionLocal}, H2 2.x); {@link #of} is empty where they
 * are missing or shaped differently (another H2 version, a connection of a kind it does not know),
 * and the trigger then runs the query. Immutable and thread-safe.
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
            if (connection instanceof JdbcConnection jdbc && jdbc.getSession() instanceof SessionLocal session) {
                var database = session.getDatabase();
                return Optional.of(new H2SessionMarks(
                        database.sysIdentifier(GuardStatements.H2_MARK.substring(1)),
                        database.sysIdentifier(H2FenceTrigger.BYPASS.substring(1))));
            }
        } catch (LinkageError e) {
            // an H2 without these classes or methods: the trigger falls back to its query
        }
        return Optional.empty();
    }

    /**
     * Whether the transaction of {@code connection}'s session entered the fence guard or the
     * session bypasses it; empty if the session cannot be read directly.
     */
    Optional<Boolean> fencedOrBypassed(Connection connection) {
        try {
            if (connection instanceof JdbcConnection jdbc && jdbc.getSession() instanceof SessionLocal session) {
                if (!session.getVariable(unfencedName).containsNull()) {
                    return Optional.of(true);
                }
                Value mark = session.getVariable(fencedName);
                // TRANSACTION_ID() is null until the transaction changes something, else its number
                return Optional.of(!mark.containsNull()
                        && session.hasPendingTransaction()
                        && isDecimal(mark.getString(), session.getTransaction().getSequenceNum()));
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
