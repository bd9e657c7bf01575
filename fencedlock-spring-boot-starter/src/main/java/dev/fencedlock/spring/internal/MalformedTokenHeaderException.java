package dev.fencedlock.spring.internal;

/**
 * A request to a {@code @FencedBy} method presented a malformed {@code Fencing-Token} header: the
 * request's fault, answered with HTTP 400 ({@link ReceiverProblems}). Nothing ran.
 */
final class MalformedTokenHeaderException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String lockName;

    MalformedTokenHeaderException(String message, String lockName, IllegalArgumentException cause) {
        super(message, cause);
        this.lockName = lockName;
    }

    /** The lock the method is fenced by. */
    String lockName() {
        return lockName;
    }
}
