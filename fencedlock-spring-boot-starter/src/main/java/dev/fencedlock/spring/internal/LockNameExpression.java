package dev.fencedlock.spring.internal;

import java.lang.reflect.Method;
import java.util.Arrays;
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
 * The lock-name expression of one annotated method ({@code @Locked}, {@code @FencedBy}): a SpEL
 * expression over the method's arguments, parsed and checked once, evaluated per call. Immutable
 * and thread-safe; evaluation builds a fresh context per call.
 */
final class LockNameExpression {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();
    /** Arguments by position, as {@link MethodBasedEvaluationContext} offers them. */
    private static final Pattern POSITIONAL = Pattern.compile("[pa](\\d+)");

    private final Method method;
    private final String description;
    private final Expression expression;

    private LockNameExpression(Method method, String description, Expression expression) {
        this.method = method;
        this.description = description;
        this.expression = expression;
    }

    /**
     * Parses {@code text}, the lock name of {@code method}.
     *
     * @param description how messages name the annotation and method ({@code "@Locked on
     *     com.example.Stock.take"})
     * @throws IllegalArgumentException naming {@code description} if {@code text} is not a SpEL
     *     expression or names a variable the call will not have ({@link #checkVariables})
     */
    static LockNameExpression parse(Method method, String description, String text) {
        Expression expression;
        try {
            expression = PARSER.parseExpression(text);
        } catch (ParseException e) {
            throw new IllegalArgumentException(
                    description + ": value '" + text + "' is not a SpEL expression: " + e.getMessage(), e);
        }
        checkVariables(method, description, text, expression, PARAMETER_NAMES);
        return new LockNameExpression(method, description, expression);
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

    /**
     * The lock name for one call.
     *
     * @throws IllegalArgumentException naming the method when the expression fails or yields no
     *     non-blank string
     */
    String evaluate(Object target, Object[] arguments, BeanResolver beans) {
        MethodBasedEvaluationContext context =
                new MethodBasedEvaluationContext(target, method, arguments, PARAMETER_NAMES);
        if (beans != null) {
            context.setBeanResolver(beans);
        }
        Object value;
        try {
            value = expression.getValue(context);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    description + ": lock name '" + expression.getExpressionString() + "' failed: " + e.getMessage(),
                    e);
        }
        if (!(value instanceof String name) || name.isBlank()) {
            throw new IllegalArgumentException(description + ": lock name '" + expression.getExpressionString()
                    + "' must give a non-blank string, gave " + (value == null ? "null" : "'" + value + "'"));
        }
        return name;
    }
}
