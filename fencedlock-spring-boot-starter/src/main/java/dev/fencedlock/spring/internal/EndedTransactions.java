package dev.fencedlock.spring.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.spring.FencedWriteRefusedException;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Recognises a fenced transaction that the database ended because its holder stalled inside it past
 * the bound the fence guard set (the lease's remaining time when the transaction began plus a
 * grace): PostgreSQL ends the session with SQLState {@code 25P03} ({@link FencedTransaction#endedForIdling})
 * and the driver reports a closed connection (SQLState class {@code 08}) from then on; MariaDB
 * closes the connection (class {@code 08}). Such a transaction was rolled back by the server and
 * nothing of it was committed: a refused stale write, stated as {@link FencedWriteRefusedException}
 * over the core refusal ({@link FenceRefusedException.Reason#ENDED_BY_DATABASE}), whose cause is the
 * database's failure.
 *
 * <p>A closed connection counts only when the lease is no longer valid and no commit was sent:
 * otherwise it may be a network failure, and a failed commit's outcome may be in doubt. {@code
 * 25P03} counts always: only the idle bound ends a session with it, and the server rolled back.
 */
final class EndedTransactions {
    private EndedTransactions() {}

    /** The refusal {@code failure} stands for, if it says the database ended {@code active}'s transaction. */
    static Optional<FencedWriteRefusedException> refusal(ActiveLease active, Throwable failure) {
        Lease lease = active.lease();
        Optional<SQLException> ended = find(failure, lease, active.commitSent());
        if (ended.isEmpty() && active.commitFailure().isPresent()) {
            ended = find(active.commitFailure().get(), lease, active.commitSent());
        }
        return ended.map(sql -> refusal(
                lease, "SQLState " + sql.getSQLState() + ": " + sql.getMessage(), failure, active.commitFailure()));
    }

    /**
     * The refusal a failed rollback of {@code active}'s transaction stands for: one the database had
     * ended ({@link #refusal(ActiveLease, Throwable)}), or, whatever the failure says, one whose
     * lease is no longer valid and whose commit was never sent, so nothing of it was committed (an
     * ORM may have closed its side of the connection after the database ended the session, and then
     * reports no SQL state at all).
     */
    static Optional<FencedWriteRefusedException> afterFailedRollback(ActiveLease active, Throwable rollbackFailure) {
        Optional<FencedWriteRefusedException> ended = refusal(active, rollbackFailure);
        Lease lease = active.lease();
        if (ended.isPresent() || lease.isValid() || active.commitSent()) {
            return ended;
        }
        return Optional.of(refusal(
                lease,
                "its rollback failed: " + rollbackFailure.getMessage(),
                rollbackFailure,
                active.commitFailure()));
    }

    private static FencedWriteRefusedException refusal(
            Lease lease, String what, Throwable cause, Optional<RuntimeException> commitFailure) {
        FencedWriteRefusedException refusal = new FencedWriteRefusedException(new FenceRefusedException(
                FenceRefusedException.Reason.ENDED_BY_DATABASE,
                lease.lockName(),
                lease.token(),
                null,
                "the database ends a fenced transaction idle longer than the lease's remaining time when it"
                        + " began plus " + FencedTransaction.IDLE_GRACE.toSeconds()
                        + " s, which frees the fence row for the next holder; nothing of it was committed (" + what
                        + ")",
                cause));
        commitFailure.filter(failure -> failure != cause).ifPresent(refusal::addSuppressed);
        return refusal;
    }

    private static Optional<SQLException> find(Throwable failure, Lease lease, boolean commitSent) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        SQLException closed = null;
        for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                if (FencedTransaction.endedForIdling(sql)) {
                    return Optional.of(sql);
                }
                String state = sql.getSQLState();
                if (closed == null && state != null && state.startsWith("08")) {
                    closed = sql;
                }
            }
        }
        return closed != null && !lease.isValid() && !commitSent ? Optional.of(closed) : Optional.empty();
    }
}
