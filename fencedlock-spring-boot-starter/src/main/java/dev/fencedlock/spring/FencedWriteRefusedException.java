package dev.fencedlock.spring;

import dev.fencedlock.FenceRefusedException;
import java.util.OptionalLong;
import org.springframework.dao.OptimisticLockingFailureException;

/**
 * A fenced transaction was refused, as Spring's data access layer states it: a newer holder of the
 * lock had already registered a larger fencing token, this holder's lease was no longer valid when
 * the transaction began or was about to commit, or the database ended the transaction after its
 * holder stalled inside it past the lease. The transaction has been rolled back; nothing it wrote
 * is kept.
 *
 * <p>Its cause is always the core {@link FenceRefusedException}, the type every fencing adapter
 * raises; the accessors here return its lock name, token, newer token and reason. The database
 * failure the refusal was found behind, if any, is that exception's cause.
 *
 * <p>It is an {@link OptimisticLockingFailureException}, so code that already retries or reports
 * optimistic locking failures handles it. Retrying makes sense only with a new lease: the refused
 * one stays stale.
 */
public class FencedWriteRefusedException extends OptimisticLockingFailureException {
    private static final long serialVersionUID = 1L;

    /**
     * @param refusal the core refusal: this exception's cause and message
     * @throws IllegalArgumentException if {@code refusal} is null
     */
    public FencedWriteRefusedException(FenceRefusedException refusal) {
        this(requireRefusal(refusal).getMessage(), refusal);
    }

    /**
     * @param message the message, which should state what {@code refusal}'s does
     * @param refusal the core refusal: this exception's cause
     * @throws IllegalArgumentException if {@code refusal} is null
     */
    public FencedWriteRefusedException(String message, FenceRefusedException refusal) {
        super(message, requireRefusal(refusal));
    }

    private static FenceRefusedException requireRefusal(FenceRefusedException refusal) {
        if (refusal == null) {
            throw new IllegalArgumentException("refusal must not be null");
        }
        return refusal;
    }

    /** The core refusal: this exception's cause. */
    public FenceRefusedException refusal() {
        return (FenceRefusedException) getCause();
    }

    /** Why the transaction was refused. */
    public FenceRefusedException.Reason reason() {
        return refusal().reason();
    }

    /** The lock whose fence refused the transaction. */
    public String lockName() {
        return refusal().lockName();
    }

    /** The token of the refused lease. */
    public long token() {
        return refusal().token();
    }

    /** The newer token that the fence holds, when the refusal came from the fence; empty when the lease had expired. */
    public OptionalLong newerToken() {
        return refusal().newerToken();
    }
}
