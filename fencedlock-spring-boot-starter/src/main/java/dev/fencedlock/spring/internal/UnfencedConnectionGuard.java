package dev.fencedlock.spring.internal;

import java.lang.reflect.Method;
import java.util.Optional;
import javax.sql.DataSource;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Refuses a JDBC connection taken from a {@link DataSource} bean inside a locked call but outside
 * any transaction: its statements would run in autocommit, where no guard runs, so a holder stalled
 * past its lease could overwrite a newer holder's write. Connections a transaction manager takes
 * while it begins a transaction ({@link ActiveLease#beginning}), and those of an active
 * transaction, pass; so does everything outside a locked call. Thread-safe; state is per thread.
 */
final class UnfencedConnectionGuard extends StaticMethodMatcherPointcut implements MethodInterceptor {

    /** Matches {@code getConnection} of {@link DataSource} beans. */
    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return method.getName().equals("getConnection") && DataSource.class.isAssignableFrom(targetClass);
    }

    /**
     * @throws IllegalStateException naming the lock, when called in a locked call outside a
     *     transaction
     */
    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Optional<ActiveLease> active = ActiveLease.current();
        if (active.isPresent()
                && !active.get().beginning()
                && !TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("A JDBC connection was requested inside the locked call of lock '"
                    + active.get().lease().lockName() + "' outside any transaction; its statements would run"
                    + " in autocommit, unfenced, so it is refused. Run the database work in a transaction:"
                    + " annotate the method (or the one it calls) with @Transactional, or use"
                    + " FencedTransactions");
        }
        return invocation.proceed();
    }
}
