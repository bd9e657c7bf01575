package dev.fencedlock.jpa;

import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.StaleTokenException;
import jakarta.persistence.OptimisticLockException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A fenced transaction or write was refused: a newer token of the lock has already been
 * registered, or the entity carried a newer token than the lease's, or the lease was no longer
 * valid.
 *
 * <p>A subclass of {@link OptimisticLockException}, so code that already retries or rolls back on
 * optimistic-locking failures handles it. Nothing the transaction wrote is kept: a refusal at
 * {@code begin()} has already rolled the transaction back; at the transaction's first statement
 * (the fence guard on PostgreSQL, which travels with that statement) the connection is rolled back
 * and the transaction marked for rollback; at a flush the provider marks it for rollback; at commit
 * it is rolled back. Thrown from {@code begin()} (the fence guard elsewhere), from the first
 * statement ({@code find}, a query, {@code persist}, a flush), or from the commit (possibly wrapped
 * by the provider in a {@link jakarta.persistence.RollbackException}); {@link #findIn(Throwable)}
 * digs it out.
 *
 * <p>Two writes under one token, and a detached copy merged over a newer write, are refused by the
 * entity's {@code @Version} with Hibernate's own {@link OptimisticLockException}, not with this.
 */
public class StaleFencingTokenException extends OptimisticLockException {
    private static final long serialVersionUID = 1L;

    /** Why the write was refused. */
    public enum Reason {
        /** The bound lease had expired or was lost when the transaction began, a write ran, or it committed. */
        LEASE_NOT_VALID,
        /** The entity, as this transaction read it, already carried a newer token than the lease's. */
        NEWER_TOKEN_READ,
        /**
         * The fence row of the lock holds a newer token: a later holder of the lock has begun a
         * fenced transaction. Refused by the fence guard, the transaction's first statement.
         */
        NEWER_HOLDER_WROTE
    }

    private final Reason reason;
    private final String lockName;
    private final String entityName;
    private final long staleToken;
    private final Long newerToken;

    /**
     * @param entity the entity instance, or null when the refusal concerns no single instance
     * @param entityName the entity name, or null when the refusal concerns no single entity
     * @param newerToken the newer token the row or the fence row holds, or null when unknown
     * @param detail what happened, appended to the message
     */
    public StaleFencingTokenException(
            Reason reason,
            String lockName,
            Object entity,
            String entityName,
            long staleToken,
            Long newerToken,
            String detail,
            Throwable cause) {
        super(message(reason, lockName, entityName, staleToken, newerToken, detail), cause, entity);
        this.reason = reason;
        this.lockName = lockName;
        this.entityName = entityName;
        this.staleToken = staleToken;
        this.newerToken = newerToken;
    }

    /** The JPA form of {@code fencing-jdbc}'s refusal by the fence guard, with it as the cause. */
    public static StaleFencingTokenException of(StaleTokenException refusal) {
        return new StaleFencingTokenException(
                Reason.NEWER_HOLDER_WROTE,
                refusal.lockName(),
                null,
                null,
                refusal.staleToken(),
                refusal.newerToken(),
                "a later holder of the lock has begun a fenced transaction; this one was rolled back",
                refusal);
    }

    /** The bound lease was no longer valid {@code when}. */
    public static StaleFencingTokenException leaseNotValid(Lease lease, String when) {
        return new StaleFencingTokenException(
                Reason.LEASE_NOT_VALID,
                lease.lockName(),
                null,
                null,
                lease.token(),
                null,
                "the lease expired or was lost " + when,
                null);
    }

    /** {@code entity} carried fence {@code carried}, newer than the bound lease's token. */
    public static StaleFencingTokenException newerTokenRead(Lease lease, Object entity, long carried) {
        return new StaleFencingTokenException(
                Reason.NEWER_TOKEN_READ,
                lease.lockName(),
                entity,
                entity.getClass().getName(),
                lease.token(),
                carried,
                "the entity was written under a newer token",
                null);
    }

    /** Returns the first {@code StaleFencingTokenException} in the cause chain of {@code failure}. */
    public static Optional<StaleFencingTokenException> findIn(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof StaleFencingTokenException stale) {
                return Optional.of(stale);
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return Optional.empty();
    }

    public Reason reason() {
        return reason;
    }

    /** The name of the lock whose lease carried the refused token. */
    public String lockName() {
        return lockName;
    }

    /** The entity name, empty when the refusal was not about one entity (a refusal at begin or commit). */
    public Optional<String> entityName() {
        return Optional.ofNullable(entityName);
    }

    /** The token of the lease whose transaction or write was refused. */
    public long staleToken() {
        return staleToken;
    }

    /**
     * The newer token that caused the refusal: the fence row's for {@link Reason#NEWER_HOLDER_WROTE},
     * the entity's for {@link Reason#NEWER_TOKEN_READ}; empty for {@link Reason#LEASE_NOT_VALID}.
     */
    public OptionalLong newerToken() {
        return newerToken == null ? OptionalLong.empty() : OptionalLong.of(newerToken);
    }

    private static String message(
            Reason reason, String lockName, String entityName, long staleToken, Long newerToken, String detail) {
        StringBuilder text = new StringBuilder("Fenced write refused (")
                .append(reason)
                .append("): lock '")
                .append(lockName)
                .append("', token ")
                .append(staleToken);
        if (newerToken != null) {
            text.append(", newer token ").append(newerToken);
        }
        if (entityName != null) {
            text.append(", entity ").append(entityName);
        }
        if (detail != null) {
            text.append(": ").append(detail);
        }
        return text.toString();
    }
}
