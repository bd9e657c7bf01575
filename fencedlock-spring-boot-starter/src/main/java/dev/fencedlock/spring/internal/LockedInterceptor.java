package dev.fencedlock.spring.internal;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.spring.Locked;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.expression.BeanResolver;

/**
 * The advice behind {@link Locked}: evaluates the lock name, acquires before the transaction
 * interceptor runs (this advice is ordered outside it), runs the call with the lease current, and
 * releases after the call, that is after the transaction completed. Thread-safe.
 */
final class LockedInterceptor implements MethodInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(LockedInterceptor.class);

    private final Supplier<LockClient> client;
    private final Supplier<LockedExecution> execution;
    private final BeanResolver beans;
    private final Map<Method, LockedMethod> methods = new ConcurrentHashMap<>();

    /**
     * @param client looked up on each call (the bean factory caches it), so that creating the
     *     advisor early does not connect to the backend early
     * @param execution looked up like {@code client}
     */
    public LockedInterceptor(Supplier<LockClient> client, Supplier<LockedExecution> execution, BeanResolver beans) {
        this.client = client;
        this.execution = execution;
        this.beans = beans;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = target == null
                ? invocation.getMethod()
                : AopUtils.getMostSpecificMethod(invocation.getMethod(), target.getClass());
        LockedMethod locked = methods.computeIfAbsent(method, LockedInterceptor::parse);
        LockedExecution.requireNoTransaction(locked.description());
        String name = locked.lockName(target, invocation.getArguments(), beans);
        FencedLock lock = client.get().lock(name);
        LockedExecution run = execution.get();
        LockedObservations observations = run.observations();
        // the same keys on every outcome, so that timers made from the observations keep one tag set
        LockedObservations.Step call = observations
                .start(LockedObservations.LOCKED, name)
                .lowCardinality(LockedObservations.BACKEND, "none")
                .lowCardinality(LockedObservations.OUTCOME, "failed");
        try (LockedObservations.Scope scope = call.openScope()) {
            Optional<Lease> acquired = observedAcquire(lock, locked, observations);
            if (acquired.isEmpty()) {
                call.lowCardinality(LockedObservations.OUTCOME, "skipped");
                LOG.debug(
                        "{}: lock '{}' stayed taken for {}; call skipped",
                        locked.description(),
                        name,
                        locked.waitTime());
                return locked.skippedResult();
            }
            call.lowCardinality(LockedObservations.OUTCOME, "acquired")
                    .lowCardinality(LockedObservations.BACKEND, acquired.get().backend())
                    .highCardinality(
                            LockedObservations.TOKEN,
                            Long.toString(acquired.get().token()));
            try (Lease lease = acquired.get()) {
                return run.run(lease, invocation::proceed);
            }
        } catch (Throwable failure) {
            call.error(failure);
            throw failure;
        } finally {
            call.stop();
        }
    }

    private static Optional<Lease> observedAcquire(
            FencedLock lock, LockedMethod locked, LockedObservations observations) {
        LockedObservations.Step step = observations
                .start(LockedObservations.ACQUIRE, lock.name())
                .lowCardinality(LockedObservations.BACKEND, "none")
                .lowCardinality(LockedObservations.OUTCOME, "failed");
        try {
            Optional<Lease> acquired = acquire(lock, locked);
            step.lowCardinality(LockedObservations.OUTCOME, acquired.isPresent() ? "acquired" : "skipped");
            acquired.ifPresent(lease -> step.lowCardinality(LockedObservations.BACKEND, lease.backend())
                    .highCardinality(LockedObservations.TOKEN, Long.toString(lease.token())));
            return acquired;
        } catch (RuntimeException | Error failure) {
            step.error(failure);
            throw failure;
        } finally {
            step.stop();
        }
    }

    /** The lease; empty when the lock stayed taken and the method skips then, else that throws. */
    private static Optional<Lease> acquire(FencedLock lock, LockedMethod locked) {
        Duration wait = locked.waitTime();
        Optional<Duration> leaseTime = locked.leaseTime();
        try {
            if (locked.skipWhenTaken()) {
                return leaseTime.isPresent() ? lock.tryAcquire(wait, leaseTime.get()) : lock.tryAcquire(wait);
            }
            return Optional.of(leaseTime.isPresent() ? lock.acquire(wait, leaseTime.get()) : lock.acquire(wait));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CannotAcquireLockException(
                    locked.description() + ": interrupted while waiting for lock '" + lock.name() + "'", e);
        }
    }

    private static LockedMethod parse(Method method) {
        Locked locked = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
        if (locked == null) {
            throw new IllegalStateException("No @Locked on " + method);
        }
        return LockedMethod.parse(method, locked);
    }
}
