package dev.fencedlock.spring;

import java.util.OptionalLong;
import org.springframework.dao.OptimisticLockingFailureException;

/**
 * A fenced transaction was refused: a newer holder of the lock had already registered a larger
 * fencing token, or this holder's lease was no longer valid when the transaction was about to
 * commit. The transaction has been rolled back; nothing it wrote is kept.
 *
 * <p>It is an {@link OptimisticLockingFailureException}, so code that already retries or reports
 * optimistic locking failures handles it. Retrying makes sense only with a new lease: the refused
 * one stays stale.
 */
public class FencedWriteRefusedException extends OptimisticLockingFailureException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final long staleToken;
    private final Long newerToken;

    public FencedWriteRefusedException(
            String message, String lockName, long staleToken, Long newerToken, Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
        this.staleToken = staleToken;
        this.newerToken = newerToken;
    }

    /** The lock whose fence refused the transaction. */
    public String lockName() {
        return lockName;
    }

    /** The token of the refused lease. */
    public long staleToken() {
        return staleToken;
    }

    /** The newer token that the fence holds, when the refusal came from the fence; empty when the lease had expired. */
    public OptionalLong newerToken() {
        return newerToken == null ? OptionalLong.empty() : OptionalLong.of(newerToken);
    }
}
