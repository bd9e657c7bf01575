package dev.fencedlock.jdbc.internal;

import java.sql.SQLException;
import java.util.Set;

/**
 * Tells the database's concurrency failures (a statement or commit lost a race with another
 * transaction) from other failures. A fenced transaction that fails this way may have lost to a
 * newer holder; the guard then looks the fence row up. Stateless.
 *
 * <p>Recognised, anywhere in the exception's chain of causes and next exceptions:
 *
 * <ul>
 *   <li>SQLState class {@code 40} (transaction rollback): {@code 40001} serialization failure
 *       (PostgreSQL and H2 under REPEATABLE READ and SERIALIZABLE, MariaDB/MySQL deadlock {@code
 *       1213}), {@code 40P01} PostgreSQL deadlock;
 *   <li>{@code 55P03} PostgreSQL lock not available (lock timeout);
 *   <li>MariaDB/MySQL error {@code 1205} lock wait timeout and {@code 1213} deadlock;
 *   <li>H2 error {@code 50200} lock timeout and {@code 90131} concurrent update.
 * </ul>
 */
final class ConcurrencyFailures {
    private static final Set<String> STATES = Set.of("55P03", "90131");
    private static final Set<Integer> VENDOR_CODES = Set.of(1205, 1213, 50200, 90131);
    private static final int MAX_CHAIN = 16;

    private ConcurrencyFailures() {}

    /** Whether {@code failure} or an exception it wraps or chains is a concurrency failure. */
    public static boolean isConcurrencyFailure(Throwable failure) {
        int seen = 0;
        for (Throwable t = failure; t != null && seen < MAX_CHAIN; t = next(t), seen++) {
            if (t instanceof SQLException e && isOne(e)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code failure} or an exception it wraps or chains is a lock timeout: PostgreSQL
     * {@code 55P03}, MariaDB/MySQL {@code 1205}, H2 {@code 50200}.
     */
    public static boolean isLockTimeout(Throwable failure) {
        int seen = 0;
        for (Throwable t = failure; t != null && seen < MAX_CHAIN; t = next(t), seen++) {
            if (t instanceof SQLException e
                    && ("55P03".equals(e.getSQLState()) || e.getErrorCode() == 1205 || e.getErrorCode() == 50200)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isOne(SQLException e) {
        String state = e.getSQLState();
        return (state != null && (state.startsWith("40") || STATES.contains(state)))
                || VENDOR_CODES.contains(e.getErrorCode());
    }

    private static Throwable next(Throwable t) {
        if (t instanceof SQLException e && e.getNextException() != null) {
            return e.getNextException();
        }
        return t.getCause() == t ? null : t.getCause();
    }
}
