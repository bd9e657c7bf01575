package dev.fencedlock;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A fenced write was refused: the one exception every fencing adapter raises for it, thrown as it
 * is ({@code JdbcFencing}) or as the cause of the adapter's own type where a framework's contract
 * asks for one (fencing-jpa's {@code StaleFencingTokenException}, an {@code
 * OptimisticLockException}; the Spring starter's {@code FencedWriteRefusedException}, a {@code
 * DataAccessException}). Nothing the refused transaction wrote is kept: it has been rolled back, or
 * is marked for rollback, when this reaches the caller.
 *
 * <p>Retrying under the same lease cannot succeed: its token stays older than the registered one,
 * and a lease that is no longer valid stays so. Acquire the lock again and retry with the new lease.
 *
 * <p>Immutable.
 */
public class FenceRefusedException extends LockException {
    private static final long serialVersionUID = 1L;

    /** The {@link #token()} of a refusal for which no lease was bound ({@link Reason#NO_LEASE_BOUND}). */
    public static final long NO_TOKEN = -1;

    /** Why a fenced write was refused. */
    public enum Reason {
        /**
         * The lock's fence row holds a newer token: a later holder of the lock has begun a fenced
         * transaction in that database. {@link #newerToken()} is that token.
         */
        NEWER_TOKEN_REGISTERED("a later holder of the lock has registered a newer token"),
        /**
         * The data this transaction read already carries a newer token of the lock than the lease's
         * (fencing-jpa's fence column). {@link #newerToken()} is that token.
         */
        NEWER_TOKEN_READ("the data was already written under a newer token of the lock"),
        /** The lease had expired or was lost when the transaction began, when it wrote, or at commit. */
        LEASE_NOT_VALID("the lease was no longer valid (expired or lost)"),
        /**
         * The database ended the transaction because its holder sat idle inside it past the bound
         * the fence set (the lease's remaining time when it began plus a grace); the server rolled
         * it back.
         */
        ENDED_BY_DATABASE(
                "the transaction was ended by the database after its holder stalled inside it past the lease"),
        /**
         * A write that must be fenced ran on a thread with no lease bound: there is no token to check.
         * {@link #lockName()} is null and {@link #token()} is {@link #NO_TOKEN}.
         */
        NO_LEASE_BOUND("no lease was bound for a fenced write"),
        /**
         * A receiver fences its transaction with the token a request or message presents, and it
         * presented none for the lock ({@link FencingTokenCheck}). {@link #token()} is {@link #NO_TOKEN}.
         */
        TOKEN_NOT_PRESENTED("the request or message presented no token for the lock"),
        /**
         * The token a request or message presented was not taken as granted ({@link
         * FencingTokenCheck}): its time part lies ahead of the receiver's clock by more than the
         * allowed skew, or a signature was required and missing, made with an unknown key or wrong.
         */
        TOKEN_NOT_TRUSTED("the presented token was not taken as granted");

        private final String description;

        Reason(String description) {
            this.description = description;
        }

        /** The reason in words, as the message states it. */
        public String description() {
            return description;
        }
    }

    private final Reason reason;
    private final String lockName;
    private final long token;
    private final Long newerToken;

    /**
     * @param lockName the lock whose lease's write was refused; null only for {@link
     *     Reason#NO_LEASE_BOUND}
     * @param token the refused lease's token; {@link #NO_TOKEN} for {@link Reason#NO_LEASE_BOUND} and {@link
     *     Reason#TOKEN_NOT_PRESENTED}
     * @param newerToken the newer token registered or read, null when not known
     * @param detail when or where it happened, appended to the message in brackets; null for none
     * @param cause the failure the refusal was found behind (a database error), or null
     * @throws IllegalArgumentException if {@code reason} is null, or {@code lockName} is null for
     *     another reason than {@link Reason#NO_LEASE_BOUND}
     */
    public FenceRefusedException(
            Reason reason, String lockName, long token, Long newerToken, String detail, Throwable cause) {
        super(message(reason, lockName, token, newerToken, detail), cause);
        this.reason = reason;
        this.lockName = lockName;
        this.token = token;
        this.newerToken = newerToken;
    }

    /** Why the write was refused; never null. */
    public Reason reason() {
        return reason;
    }

    /** The lock whose lease's write was refused; null only for {@link Reason#NO_LEASE_BOUND}. */
    public String lockName() {
        return lockName;
    }

    /**
     * The token of the refused lease or presented claim; {@link #NO_TOKEN} for {@link
     * Reason#NO_LEASE_BOUND} and {@link Reason#TOKEN_NOT_PRESENTED}.
     */
    public long token() {
        return token;
    }

    /**
     * The newer token that was already registered ({@link Reason#NEWER_TOKEN_REGISTERED}) or read
     * ({@link Reason#NEWER_TOKEN_READ}); empty when the refusal was not about a newer token, or the
     * database did not say which.
     */
    public OptionalLong newerToken() {
        return newerToken == null ? OptionalLong.empty() : OptionalLong.of(newerToken);
    }

    /**
     * The first {@code FenceRefusedException} in {@code failure}'s cause chain, {@code failure}
     * itself included; empty if there is none or {@code failure} is null.
     */
    public static Optional<FenceRefusedException> findIn(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof FenceRefusedException refusal) {
                return Optional.of(refusal);
            }
        }
        return Optional.empty();
    }

    private static String message(Reason reason, String lockName, long token, Long newerToken, String detail) {
        if (reason == null) {
            throw new IllegalArgumentException("reason must not be null");
        }
        if (lockName == null && reason != Reason.NO_LEASE_BOUND) {
            throw new IllegalArgumentException("lockName must not be null for reason " + reason);
        }
        StringBuilder text = new StringBuilder("Fenced write refused");
        if (lockName != null) {
            text.append(" for lock '").append(lockName).append("', token ").append(token);
            if (newerToken != null) {
                text.append(" (newer token ").append(newerToken).append(')');
            }
        }
        text.append(": ").append(reason.description());
        if (detail != null && !detail.isEmpty()) {
            text.append(" (").append(detail).append(')');
        }
        return text.toString();
    }
}
