package dev.fencedlock.spring.internal;

import dev.fencedlock.LockConfig;
import dev.fencedlock.spring.Locked;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * One {@link Locked} method, its attributes parsed once: the lock-name expression and the
 * durations. Immutable and thread-safe; evaluation builds a fresh context per call.
 */
final class LockedMethod {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();
    /** Arguments by position, as {@link MethodBasedEvaluationContext} offers them. */
    private static final Pattern POSITIONAL = Pattern.compile("[pa](\\d+)");

    private final Method method;
    private final String description;
    private final Expression lockName;
    private final Duration waitTime;
    private final Duration leaseTime;
    private final boolean skipWhenTaken;

    private LockedMethod(
            Method method,
            String description,
            Expression lockName,
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
        Expression expression;
        try {
            expression = PARSER.parseExpression(locked.value());
        } catch (ParseException e) {
            throw new IllegalArgumentException(
                    description + ": value '" + locked.value() + "' is not a SpEL expression: " + e.getMessage(), e);
        }
        checkVariables(method, description, locked.value(), expression, PARAMETER_NAMES);
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
        return new LockedMethod(method, description, expression, wait, lease, skip);
    }

    /**
     * Refuses an expression that names a variable the call will not have. Without this, such a
     * variable is null and every call locks the same name ({@code stock:null}), silently: the
     * typical cause is a class compiled without {@code -parameters}, where no parameter has a name.
     *
     * @throws IllegalArgumentException naming the method, the variable, and the fix
     */
    static void checkVariables(
            Method method, String description, String text, Expression expression, ParameterNameDiscoverer names) {
        Set<String> variables = new TreeSet<>();
        if (expression instanceof SpelExpression spel) {
            collectVariables(spel.getAST(), variables);
        }
        String[] parameterNames = names.getParameterNames(method);
        int count = method.getParameterCount();
        for (String variable : variables) {
            Matcher positional = POSITIONAL.matcher(variable);
            if (positional.matches()) {
                if (Integer.parseInt(positional.group(1)) >= count) {
                    throw new IllegalArgumentException(description + ": lock name '" + text + "' refers to #" + variable
                            + ", but the method has " + count + " parameter(s)");
                }
            } else if (parameterNames == null) {
                throw new IllegalArgumentException(description + ": lock name '" + text + "' refers to #" + variable
                        + ", but the parameter names of " + method.getName()
                        + " are not in its class file, so #" + variable + " would be null on every call"
                        + " (one lock for all calls). Compile with -parameters (Spring Boot's Maven and Gradle"
                        + " plugins set it), or refer to arguments by position: #p0 is the first");
            } else if (!Arrays.asList(parameterNames).contains(variable)) {
                throw new IllegalArgumentException(description + ": lock name '" + text + "' refers to #" + variable
                        + ", which is not a parameter of the method; its parameters are "
                        + Arrays.toString(parameterNames) + " (or #p0 to #p" + (count - 1) + " by position)");
            }
        }
    }

    private static void collectVariables(SpelNode node, Set<String> variables) {
        if (node instanceof VariableReference) {
            String name = node.toStringAST().substring(1);
            if (!name.equals("this") && !name.equals("root")) {
                variables.add(name);
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectVariables(node.getChild(i), variables);
        }
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
