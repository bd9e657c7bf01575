package dev.fencedlock.spring.internal;

import dev.fencedlock.LockConfig;
import dev.fencedlock.spring.Locked;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import org.springframework.expression.BeanResolver;

/**
 * One {@link Locked} method, its attributes parsed once: the lock-name expression ({@link
 * LockNameExpression}) and the durations. Immutable and thread-safe.
 */
final class LockedMethod {
    private final Method method;
    private final String description;
    private final LockNameExpression lockName;
    private final Duration waitTime;
    private final Duration leaseTime;
    private final boolean skipWhenTaken;

    private LockedMethod(
            Method method,
            String description,
            LockNameExpression lockName,
            Duration waitTime,
            Duration leaseTime,
            boolean skipWhenTaken) {
        this.method = method;
        this.description = description;
        this.lockName = lockName;
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.skipWhenTaken = skipWhenTaken;
    }

    /**
     * Parses {@code locked} as found on {@code method}.
     *
     * @throws IllegalArgumentException naming the method and attribute for an expression or a
     *     duration that cannot be read, a negative wait or non-positive lease, or {@code whenTaken =
     *     SKIP} on a method returning a primitive
     */
    static LockedMethod parse(Method method, Locked locked) {
        String description = "@Locked on " + method.getDeclaringClass().getName() + "." + method.getName();
        LockNameExpression lockName = LockNameExpression.parse(method, description, locked.value());
        Duration wait = LockConfig.parseDuration(description + " waitTime", locked.waitTime());
        if (wait.isNegative()) {
            throw new IllegalArgumentException(
                    description + ": waitTime must not be negative, got " + locked.waitTime());
        }
        Duration lease = null;
        if (!locked.leaseTime().isEmpty()) {
            lease = LockConfig.parseDuration(description + " leaseTime", locked.leaseTime());
            if (lease.isZero() || lease.isNegative()) {
                throw new IllegalArgumentException(
                        description + ": leaseTime must be positive, got " + locked.leaseTime());
            }
        }
        boolean skip = locked.whenTaken() == Locked.WhenTaken.SKIP;
        if (skip && method.getReturnType().isPrimitive() && method.getReturnType() != void.class) {
            throw new IllegalArgumentException(description + ": whenTaken = SKIP needs a method that returns void,"
                    + " Optional or an object type (a skipped call returns nothing, Optional.empty() or null); "
                    + method.getName() + " returns " + method.getReturnType().getName());
        }
        return new LockedMethod(method, description, lockName, wait, lease, skip);
    }

    String description() {
        return description;
    }

    Duration waitTime() {
        return waitTime;
    }

    /** Whether a call skips, rather than fails, when the lock stays taken. */
    boolean skipWhenTaken() {
        return skipWhenTaken;
    }

    /** What a skipped call returns: {@code Optional.empty()} for an {@code Optional} method, else null. */
    Object skippedResult() {
        return method.getReturnType() == Optional.class ? Optional.empty() : null;
    }

    /** The fixed lease length; empty for an auto-renewing lease. */
    Optional<Duration> leaseTime() {
        return Optional.ofNullable(leaseTime);
    }

    /**
     * The lock name for one call.
     *
     * @throws IllegalArgumentException naming the method when the expression fails or yields no
     *     non-blank string
     */
    String lockName(Object target, Object[] arguments, BeanResolver beans) {
        return lockName.evaluate(target, arguments, beans);
    }
}
