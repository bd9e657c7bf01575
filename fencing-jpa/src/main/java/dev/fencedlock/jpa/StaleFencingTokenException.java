package dev.fencedlock.jpa;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FenceRefusedException.Reason;
import jakarta.persistence.OptimisticLockException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The JPA form of a refused fenced transaction or write: a newer token of the lock has already been
 * registered, the entity carried a newer token than the lease's, or the lease was no longer valid.
 * Its cause is always the core {@link FenceRefusedException}, whose lock name, token, newer token
 * and reason the accessors here return; code that handles refusals of every adapter alike looks
 * for that one ({@link FenceRefusedException#findIn}).
 *
 * <p>fencing-jpa raises every refusal as this type, never the core one alone: JPA's contract for a
 * write refused by a concurrent change is an {@link OptimisticLockException}, so existing retry and
 * rollback code handles it, and a provider marks the transaction for rollback on it. Nothing the
 * transaction wrote is kept: a refusal at {@code begin()} has already rolled the transaction back;
 * at the transaction's first statement (the fence guard on PostgreSQL, which travels with that
 * statement) the connection is rolled back and the transaction marked for rollback; at a flush the
 * provider marks it for rollback; at commit it is rolled back. Thrown from {@code begin()} (the
 * fence guard elsewhere), from the first statement ({@code find}, a query, {@code persist}, a
 * flush), or from the commit (possibly wrapped by the provider in a {@link
 * jakarta.persistence.RollbackException}); {@link #findIn(Throwable)} digs it out.
 *
 * <p>Two writes under one token, and a detached copy merged over a newer write, are refused by the
 * entity's {@code @Version} with Hibernate's own {@link OptimisticLockException}, not with this.
 */
public class StaleFencingTokenException extends OptimisticLockException {
    private static final long serialVersionUID = 1L;

    private final String entityName;

    /**
     * @param refusal the core refusal, this exception's cause and the source of its message
     * @param entity the entity instance, or null when the refusal concerns no single instance
     * @param entityName the entity name, or null when the refusal concerns no single entity
     * @throws IllegalArgumentException if {@code refusal} is null
     */
    public StaleFencingTokenException(FenceRefusedException refusal, Object entity, String entityName) {
        super(message(refusal, entityName), refusal, entity);
        this.entityName = entityName;
    }

    /** The JPA form of {@code refusal}, concerning no single entity. */
    public static StaleFencingTokenException of(FenceRefusedException refusal) {
        return new StaleFencingTokenException(refusal, null, null);
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

    /** The core refusal: this exception's cause. */
    public FenceRefusedException refusal() {
        return (FenceRefusedException) getCause();
    }

    /** Why the write was refused ({@link FenceRefusedException#reason()}). */
    public Reason reason() {
        return refusal().reason();
    }

    /** The name of the lock whose lease carried the refused token. */
    public String lockName() {
        return refusal().lockName();
    }

    /** The entity name, empty when the refusal was not about one entity (a refusal at begin or commit). */
    public Optional<String> entityName() {
        return Optional.ofNullable(entityName);
    }

    /** The token of the lease whose transaction or write was refused. */
    public long token() {
        return refusal().token();
    }

    /**
     * The newer token that caused the refusal: the fence row's for {@link
     * Reason#NEWER_TOKEN_REGISTERED}, the entity's for {@link Reason#NEWER_TOKEN_READ}; empty for
     * {@link Reason#LEASE_NOT_VALID}.
     */
    public OptionalLong newerToken() {
        return refusal().newerToken();
    }

    private static String message(FenceRefusedException refusal, String entityName) {
        if (refusal == null) {
            throw new IllegalArgumentException("refusal must not be null");
        }
        return entityName == null ? refusal.getMessage() : refusal.getMessage() + " (entity " + entityName + ")";
    }
}
