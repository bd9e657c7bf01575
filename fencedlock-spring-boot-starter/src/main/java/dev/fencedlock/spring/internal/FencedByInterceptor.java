package dev.fencedlock.spring.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.jdbc.FenceRowBusyException;
import dev.fencedlock.spring.FencedBy;
import dev.fencedlock.spring.FencedWriteRefusedException;
import dev.fencedlock.spring.Locked;
import java.lang.reflect.Method;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.BeanResolver;

/**
 * The advice behind {@link FencedBy}: evaluates the lock name, takes the token the thread's request
 * presents for it ({@link PresentedTokens}), and runs the call with that token current exactly as
 * a {@link Locked} call runs with its lease ({@link LockedExecution}), ordered outside the
 * transaction interceptor. Failures of the receiver's own (its token refused, malformed, the fence
 * row busy for the whole bound) leave as the types {@link ReceiverProblems} answers. Thread-safe.
 */
final class FencedByInterceptor implements MethodInterceptor {
    private final Supplier<PresentedTokens> tokens;
    private final Supplier<LockedExecution> execution;
    private final BeanResolver beans;
    private final Map<Method, Parsed> methods = new ConcurrentHashMap<>();

    /** One {@link FencedBy} method: how messages name it, and its lock-name expression. */
    private record Parsed(String description, LockNameExpression lockName) {}

    /**
     * @param tokens looked up on each call (the bean factory caches it), so that creating the
     *     advisor early does not create the receiver's beans early
     * @param execution looked up like {@code tokens}
     */
    FencedByInterceptor(Supplier<PresentedTokens> tokens, Supplier<LockedExecution> execution, BeanResolver beans) {
        this.tokens = tokens;
        this.execution = execution;
        this.beans = beans;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = target == null
                ? invocation.getMethod()
                : AopUtils.getMostSpecificMethod(invocation.getMethod(), target.getClass());
        Parsed fencedBy = methods.computeIfAbsent(method, FencedByInterceptor::parse);
        LockedExecution.requireNoTransaction(fencedBy.description());
        String name = fencedBy.lockName().evaluate(target, invocation.getArguments(), beans);
        LockedExecution run = execution.get();
        PresentedLease lease;
        try {
            lease = tokens.get().present(name, fencedBy.description());
        } catch (FenceRefusedException refused) {
            PresentedTokenRefusedException refusal = new PresentedTokenRefusedException(refused);
            run.refused(refusal);
            throw refusal;
        }
        try {
            return run.run(lease, invocation::proceed);
        } catch (FencedWriteRefusedException refused) {
            throw refusedByFence(refused, lease);
        } catch (Throwable failure) {
            Optional<FenceRowBusyException> busy = busyRow(failure, lease);
            if (busy.isPresent()) {
                throw new PresentedRowBusyException(busy.get(), failure);
            }
            throw failure;
        }
    }

    /** The refusal as the receiver's when it refused the presented token; one of a nested {@code @Locked} call's as it is. */
    private static FencedWriteRefusedException refusedByFence(
            FencedWriteRefusedException refused, PresentedLease lease) {
        if (refused instanceof PresentedTokenRefusedException
                || !lease.lockName().equals(refused.lockName())
                || lease.token() != refused.token()) {
            return refused;
        }
        return new PresentedTokenRefusedException(refused);
    }

    /** The fence row of the presented token's lock, found busy for the whole bound behind {@code failure}. */
    private static Optional<FenceRowBusyException> busyRow(Throwable failure, PresentedLease lease) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            if (t instanceof PresentedRowBusyException) {
                return Optional.empty();
            }
            if (t instanceof FenceRowBusyException busy && lease.lockName().equals(busy.lockName())) {
                return Optional.of(busy);
            }
        }
        return Optional.empty();
    }

    private static Parsed parse(Method method) {
        FencedBy fencedBy = AnnotatedElementUtils.findMergedAnnotation(method, FencedBy.class);
        if (fencedBy == null) {
            throw new IllegalStateException("No @FencedBy on " + method);
        }
        String description = "@FencedBy on " + method.getDeclaringClass().getName() + "." + method.getName();
        if (AnnotatedElementUtils.findMergedAnnotation(method, Locked.class) != null) {
            throw new IllegalArgumentException(description + ": the method carries @Locked too; a receiver fences"
                    + " its transactions with the token its caller presents, a holder with the lease it takes:"
                    + " keep one of them");
        }
        return new Parsed(description, LockNameExpression.parse(method, description, fencedBy.value()));
    }
}
