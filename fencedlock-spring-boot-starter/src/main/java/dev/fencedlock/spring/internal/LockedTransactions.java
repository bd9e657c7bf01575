package dev.fencedlock.spring.internal;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.spring.FencedTransactions;
import java.time.Duration;
import java.util.Objects;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionTemplate;

/** {@link FencedTransactions} over a {@link TransactionTemplate} and the {@link LockedExecution} of {@code @Locked}. */
final class LockedTransactions implements FencedTransactions {
    private final LockClient client;
    private final TransactionTemplate transactions;
    private final LockedExecution execution;

    LockedTransactions(LockClient client, PlatformTransactionManager transactionManager, LockedExecution execution) {
        this(client, new TransactionTemplate(transactionManager), execution);
    }

    private LockedTransactions(LockClient client, TransactionTemplate transactions, LockedExecution execution) {
        this.client = Objects.requireNonNull(client, "client");
        this.transactions = transactions;
        this.execution = Objects.requireNonNull(execution, "execution");
    }

    @Override
    public FencedTransactions withDefinition(TransactionDefinition definition) {
        int propagation = definition.getPropagationBehavior();
        if (propagation != TransactionDefinition.PROPAGATION_REQUIRED
                && propagation != TransactionDefinition.PROPAGATION_REQUIRES_NEW) {
            throw new IllegalArgumentException("definition's propagation must be REQUIRED or REQUIRES_NEW, got "
                    + propagation + ": a fenced transaction must be one of its own");
        }
        TransactionTemplate template = new TransactionTemplate(transactions.getTransactionManager(), definition);
        return new LockedTransactions(client, template, execution);
    }

    @Override
    public FencedTransactions withTransactionManager(PlatformTransactionManager transactionManager) {
        return new LockedTransactions(
                client,
                new TransactionTemplate(Objects.requireNonNull(transactionManager, "transactionManager"), transactions),
                execution);
    }

    @Override
    public <T> T run(String lockName, Duration waitTime, TransactionCallback<T> work) throws InterruptedException {
        LockedExecution.requireNoTransaction("FencedTransactions.run");
        FencedLock lock = client.lock(lockName);
        try (Lease lease = lock.acquire(waitTime)) {
            return inTransaction(lease, work);
        }
    }

    @Override
    public <T> T runWithFixedLease(String lockName, Duration waitTime, Duration leaseTime, TransactionCallback<T> work)
            throws InterruptedException {
        LockedExecution.requireNoTransaction("FencedTransactions.runWithFixedLease");
        FencedLock lock = client.lock(lockName);
        try (Lease lease = lock.acquire(waitTime, leaseTime)) {
            return inTransaction(lease, work);
        }
    }

    @Override
    public <T> T run(Lease lease, TransactionCallback<T> work) {
        Objects.requireNonNull(lease, "lease");
        LockedExecution.requireNoTransaction("FencedTransactions.run");
        return inTransaction(lease, work);
    }

    private <T> T inTransaction(Lease lease, TransactionCallback<T> work) {
        Objects.requireNonNull(work, "work");
        try {
            return execution.run(lease, () -> transactions.execute(work));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            // TransactionTemplate rethrows only unchecked exceptions and errors; anything else was
            // wrapped by it already
            throw new IllegalStateException(e);
        }
    }
}
