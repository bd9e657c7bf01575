package dev.fencedlock.spring.internal;

import dev.fencedlock.LockConfig;
import dev.fencedlock.spring.Locked;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * One {@link Locked} method, its attributes parsed once: the lock-name expression and the
 * durations. Immutable and thread-safe; evaluation builds a fresh context per call.
 */
final class LockedMethod {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private final Method method;
    private final String description;
    private final Expression lockName;
    private final Duration waitTime;
    private final Duration leaseTime;

    private LockedMethod(
            Method method, String description, Expression lockName, Duration waitTime, Duration leaseTime) {
        this.method = method;
        this.description = description;
        this.lockName = lockName;
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
    }

    /**
     * Parses {@code locked} as found on {@code method}.
     *
     * @throws IllegalArgumentException naming the method and attribute for an expression or a
     *     duration that cannot be read, or a negative wait or non-positive lease
     */
    static LockedMethod parse(Method method, Locked locked) {
        String description = "@Locked on " + method.getDeclaringClass().getName() + "." + method.getName();
        Expression expression;
        try {
            expression = PARSER.parseExpression(locked.value());
        } catch (ParseException e) {
            throw new IllegalArgumentException(
                    description + ": value '" + locked.value() + "' is not a SpEL expression: " + e.getMessage(), e);
        }
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
        return new LockedMethod(method, description, expression, wait, lease);
    }

    String description() {
        return description;
    }

    Duration waitTime() {
        return waitTime;
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
        MethodBasedEvaluationContext context =
                new MethodBasedEvaluationContext(target, method, arguments, PARAMETER_NAMES);
        if (beans != null) {
            context.setBeanResolver(beans);
        }
        Object value;
        try {
            value = lockName.getValue(context);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    description + ": lock name '" + lockName.getExpressionString() + "' failed: " + e.getMessage(), e);
        }
        if (!(value instanceof String name) || name.isBlank()) {
            throw new IllegalArgumentException(description + ": lock name '" + lockName.getExpressionString()
                    + "' must give a non-blank string, gave " + (value == null ? "null" : "'" + value + "'"));
        }
        return name;
    }
}
