package dev.fencedlock.testkit.redis;

/** A test server answered a set-up command with an error reply. */
public final class RedisCommandException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RedisCommandException(String message) {
        super(message);
    }
}
