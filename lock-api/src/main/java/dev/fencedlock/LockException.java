package dev.fencedlock;

/**
 * Root of every exception fencedlock throws. All are unchecked: losing a race is reported as a
 * return value ({@link FencedLock#tryAcquire}), so what remains here are faults and timeouts that
 * most callers let propagate.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LockException(String message) {
        super(message);
    }

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
