package dev.fencedlock.jpa;

import jakarta.persistence.OptimisticLockException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A write to a fenced entity was refused because it carried a stale fencing token, or was based on
 * a read that is no longer current, or its lease was no longer valid.
 *
 * <p>A subclass of {@link OptimisticLockException}, so code that already retries or rolls back on
 * optimistic-locking failures handles it. The persistence provider marks the transaction for
 * rollback; nothing the transaction wrote is kept. Thrown at flush (possibly wrapped by the
 * provider in a {@link jakarta.persistence.RollbackException} when the flush happens at commit) or,
 * when the lease lapses between the last flush and the commit, from the commit with this exception
 * deeper in the cause chain; {@link #findIn(Throwable)} digs it out.
 */
public class StaleFencingTokenException extends OptimisticLockException {
    private static final long serialVersionUID = 1L;

    /** Why the write was refused. */
    public enum Reason {
        /** The bound lease had expired or was lost when the write was flushed or committed. */
        LEASE_NOT_VALID,
        /**
         * The row, as this transaction read it, already carried a newer token than the lease's:
         * a later holder has written it. Refused before any statement was sent.
         */
        NEWER_TOKEN_READ,
        /**
         * The database refused the UPDATE or DELETE: the row no longer held the fence value this
         * transaction read (another holder wrote or deleted it since), or the entity was a copy
         * taken from an older read (for example merged from a detached instance).
         */
        ROW_CHANGED,
        /** An INSERT hit an existing row with the same id whose fence is newer than the lease's token. */
        DUPLICATE_ROW,
        /**
         * A later holder of the same lock has committed fenced writes: the lock's fence row holds a
         * newer token than the lease's. Only with the lock fence switched on ({@link
         * FencingSettings#LOCK_FENCE}); checked at commit, and the whole transaction is rolled back.
         */
        NEWER_HOLDER_WROTE
    }

    private final Reason reason;
    private final String lockName;
    private final String entityName;
    private final transient Object id;
    private final long staleToken;
    private final Long currentToken;

    /**
     * @param entity the entity instance, or null when the refusal concerns no single instance
     * @param entityName the entity name, or null when unknown (a refusal at commit)
     * @param id the entity id, or null when unknown
     * @param currentToken the fence value the row holds now, or null when unknown
     */
    public StaleFencingTokenException(
            Reason reason,
            String lockName,
            Object entity,
            String entityName,
            Object id,
            long staleToken,
            Long currentToken,
            String detail,
            Throwable cause) {
        super(message(reason, lockName, entityName, id, staleToken, currentToken, detail), cause, entity);
        this.reason = reason;
        this.lockName = lockName;
        this.entityName = entityName;
        this.id = id;
        this.staleToken = staleToken;
        this.currentToken = currentToken;
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

    /** The entity name, empty when the refusal was not about one entity (a refusal at commit). */
    public Optional<String> entityName() {
        return Optional.ofNullable(entityName);
    }

    /** The id of the refused entity, empty when unknown. */
    public Optional<Object> id() {
        return Optional.ofNullable(id);
    }

    /** The token of the lease whose write was refused. */
    public long staleToken() {
        return staleToken;
    }

    /**
     * The fence value the row holds now, when it was looked up; empty when unknown (the lease was
     * invalid before any statement ran, or the row no longer exists). For {@link
     * Reason#NEWER_HOLDER_WROTE}, the token the lock's fence row holds.
     */
    public OptionalLong currentToken() {
        return currentToken == null ? OptionalLong.empty() : OptionalLong.of(currentToken);
    }

    private static String message(
            Reason reason,
            String lockName,
            String entityName,
            Object id,
            long staleToken,
            Long currentToken,
            String detail) {
        StringBuilder text = new StringBuilder("Fenced write refused (")
                .append(reason)
                .append("): lock '")
                .append(lockName)
                .append("', token ")
                .append(staleToken);
        if (entityName != null) {
            text.append(", entity ").append(entityName);
            if (id != null) {
                text.append('#').append(id);
            }
        }
        if (currentToken != null) {
            text.append(reason == Reason.NEWER_HOLDER_WROTE ? ", lock fence now " : ", row fence now ")
                    .append(currentToken);
        }
        if (detail != null) {
            text.append(": ").append(detail);
        }
        return text.toString();
    }
}
