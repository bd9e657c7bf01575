package dev.fencedlock;

import java.time.Duration;

/**
 * A blocking {@link FencedLock#acquire} gave up because the lock stayed taken for the whole wait.
 * The backend answered; it simply never granted the lock in time. Compare {@link
 * LockUnavailableException}, which means the backend could not answer.
 */
public class LockTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final Duration elapsed;

    public LockTimeoutException(String lockName, Duration elapsed, String detail) {
        super("Timed out after " + elapsed.toMillis() + " ms waiting for lock '" + lockName + "'"
                + (detail == null || detail.isEmpty() ? "" : ": " + detail));
        this.lockName = lockName;
        this.elapsed = elapsed;
    }

    public String lockName() {
        return lockName;
    }

    /** How long the caller waited before giving up, measured on the monotonic clock. */
    public Duration elapsed() {
        return elapsed;
    }
}
