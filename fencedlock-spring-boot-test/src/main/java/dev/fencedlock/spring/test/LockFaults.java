package dev.fencedlock.spring.test;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.spring.CurrentLease;
import dev.fencedlock.testkit.local.LocalLockFaults;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Makes the lease of a {@code @Locked} call (or a {@code FencedTransactions} run) fail at a chosen
 * point, on the {@code local} backend, without waiting: what your service does when its lease ran
 * out, or when a newer holder wrote first, becomes an ordinary test. A bean of {@link
 * FencedLockTest}; inject it.
 *
 * <p>Each fault is armed for one lock name and strikes the next fenced transaction of that lock,
 * then disarms:
 *
 * <ul>
 *   <li>{@link #leaseExpiresBeforeCommit}: the lease expires after the method's work, before its
 *       transaction commits. The commit is refused, everything rolls back, and the call throws
 *       {@code FencedWriteRefusedException} with no newer token.
 *   <li>{@link #newerHolderWritesFirst}: after the call took the lock and before its transaction
 *       begins (a pause of the process at the worst moment), the lock is taken over by a newer
 *       holder, which registers its larger token in the fence table and lets go. The call's lease
 *       still looks valid; the database refuses its transaction, which throws {@code
 *       FencedWriteRefusedException} carrying the newer token, and the method body does not run.
 * </ul>
 *
 * <p>For a fault at another point, call {@link LocalLockFaults} from there (for example from a
 * collaborator the test controls). Thread-safe.
 */
public final class LockFaults implements BeanPostProcessor, TransactionExecutionListener {
    private enum Fault {
        EXPIRE_BEFORE_COMMIT,
        NEWER_HOLDER_FIRST
    }

    private final ObjectProvider<LockClient> client;
    private final ObjectProvider<DataSource> dataSource;
    private final ObjectProvider<FenceTable> table;
    private final Map<String, Fault> armed = new ConcurrentHashMap<>();

    LockFaults(
            ObjectProvider<LockClient> client,
            ObjectProvider<DataSource> dataSource,
            ObjectProvider<FenceTable> table) {
        this.client = client;
        this.dataSource = dataSource;
        this.table = table;
    }

    /**
     * The next fenced transaction of {@code lockName} sees its lease expire right before it
     * commits.
     *
     * @throws IllegalStateException unless the client runs on the {@code local} backend
     */
    public void leaseExpiresBeforeCommit(String lockName) {
        arm(lockName, Fault.EXPIRE_BEFORE_COMMIT);
    }

    /**
     * Before the next fenced transaction of {@code lockName} begins, a newer holder takes the lock
     * and registers its token in the fence table of the context's {@link DataSource}.
     *
     * @throws IllegalStateException unless the client runs on the {@code local} backend
     */
    public void newerHolderWritesFirst(String lockName) {
        arm(lockName, Fault.NEWER_HOLDER_FIRST);
    }

    /** Disarms every fault not yet struck, e.g. between tests of one context. */
    public void reset() {
        armed.clear();
    }

    private void arm(String lockName, Fault fault) {
        String backend = client.getObject().config().backend();
        if (!backend.equals("local")) {
            throw new IllegalStateException(
                    "LockFaults needs fencedlock.backend=local (as @FencedLockTest sets), not " + backend);
        }
        armed.put(lockName, fault);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof AbstractPlatformTransactionManager manager) {
            manager.addListener(this);
        }
        return bean;
    }

    @Override
    public void beforeBegin(TransactionExecution transaction) {
        CurrentLease.get()
                .filter(lease -> armed.remove(lease.lockName(), Fault.NEWER_HOLDER_FIRST))
                .ifPresent(this::overtake);
    }

    @Override
    public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
        if (beginFailure != null || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        CurrentLease.get()
                .filter(lease -> armed.remove(lease.lockName(), Fault.EXPIRE_BEFORE_COMMIT))
                .ifPresent(lease ->
                        TransactionSynchronizationManager.registerSynchronization(new ExpireBeforeCommit(lease)));
    }

    /**
     * The old holder's grant is lost; a newer holder takes the lock, registers its token, lets go.
     * The newer holder stands for another process, so it runs on a thread of its own, outside the
     * locked call (where the starter refuses connections outside a transaction).
     */
    private void overtake(Lease lease) {
        CompletableFuture<Void> newer = CompletableFuture.runAsync(() -> writeAsNewerHolder(lease));
        try {
            newer.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : e;
        }
    }

    private void writeAsNewerHolder(Lease lease) {
        LocalLockFaults.loseLease(lease.lockName());
        try (Lease newer = client.getObject().lock(lease.lockName()).acquire(Duration.ofSeconds(5));
                Connection connection = dataSource.getObject().getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                FencedTransaction.of(table.getObject(), connection, newer).begin();
                connection.commit();
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("The newer holder of '" + lease.lockName() + "' could not write", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while a newer holder took '" + lease.lockName() + "'", e);
        }
    }

    /** Ahead of the starter's own commit check, so that the check finds the lease expired. */
    private record ExpireBeforeCommit(Lease lease) implements TransactionSynchronization {
        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }

        @Override
        public void beforeCommit(boolean readOnly) {
            LocalLockFaults.expireLease(lease.lockName());
        }
    }
}
