package dev.fencedlock.spring;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.spring.internal.LockedExecution;
import java.time.Duration;
import java.util.Objects;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The programmatic form of {@link Locked}: acquire, run one transaction fenced by the lease,
 * release after it completes.
 *
 * <pre>{@code
 * int left = fencedTransactions.run("inventory:" + sku, Duration.ofSeconds(5), status -> {
 *     Item item = items.findById(sku).orElseThrow();   // fenced like in a @Locked method
 *     item.take(units);
 *     return item.quantity();
 * });
 * }</pre>
 *
 * <p>The transaction's writes are fenced exactly as in a {@code @Locked} method: JPA entities by
 * fencing-jpa, every statement on the transaction's connection by the fence row guard that runs
 * first, and the lease is checked before commit. A refusal throws {@link
 * FencedWriteRefusedException} after the rollback; {@link dev.fencedlock.LockTimeoutException} when
 * the lock stayed taken for the whole wait (nothing ran).
 *
 * <p>Thread-safe. {@link #withDefinition} derives a copy with other transaction settings.
 */
public final class FencedTransactions {
    private final LockClient client;
    private final TransactionTemplate transactions;
    private final LockedExecution execution;

    public FencedTransactions(
            LockClient client, PlatformTransactionManager transactionManager, LockedExecution execution) {
        this(client, new TransactionTemplate(transactionManager), execution);
    }

    private FencedTransactions(LockClient client, TransactionTemplate transactions, LockedExecution execution) {
        this.client = Objects.requireNonNull(client, "client");
        this.transactions = transactions;
        this.execution = Objects.requireNonNull(execution, "execution");
    }

    /**
     * A copy whose transactions use {@code definition} (isolation, timeout, read-only, name). The
     * propagation must begin a transaction of its own ({@code REQUIRED} or {@code REQUIRES_NEW}; a
     * transaction already active is refused anyway).
     *
     * @throws IllegalArgumentException for any other propagation
     */
    public FencedTransactions withDefinition(TransactionDefinition definition) {
        int propagation = definition.getPropagationBehavior();
        if (propagation != TransactionDefinition.PROPAGATION_REQUIRED
                && propagation != TransactionDefinition.PROPAGATION_REQUIRES_NEW) {
            throw new IllegalArgumentException("definition's propagation must be REQUIRED or REQUIRES_NEW, got "
                    + propagation + ": a fenced transaction must be one of its own");
        }
        TransactionTemplate template = new TransactionTemplate(transactions.getTransactionManager(), definition);
        return new FencedTransactions(client, template, execution);
    }

    /**
     * Acquires an auto-renewing lease of {@code lockName}, waiting up to {@code waitTime}, runs
     * {@code work} in a new transaction fenced by it, and releases the lease after the transaction
     * completed.
     *
     * @return what {@code work} returned
     * @throws IllegalStateException if a transaction is already active on this thread; nothing is
     *     acquired
     * @throws InterruptedException if interrupted while waiting for the lock; nothing ran
     */
    public <T> T run(String lockName, Duration waitTime, TransactionCallback<T> work) throws InterruptedException {
        LockedExecution.requireNoTransaction("FencedTransactions.run");
        FencedLock lock = client.lock(lockName);
        try (Lease lease = lock.acquire(waitTime)) {
            return inTransaction(lease, work);
        }
    }

    /**
     * Like {@link #run(String, Duration, TransactionCallback)} with a fixed lease of {@code
     * leaseTime} that is never renewed: the transaction cannot commit once it has run out.
     */
    public <T> T runWithFixedLease(String lockName, Duration waitTime, Duration leaseTime, TransactionCallback<T> work)
            throws InterruptedException {
        LockedExecution.requireNoTransaction("FencedTransactions.runWithFixedLease");
        FencedLock lock = client.lock(lockName);
        try (Lease lease = lock.acquire(waitTime, leaseTime)) {
            return inTransaction(lease, work);
        }
    }

    /**
     * Runs {@code work} in a new transaction fenced by a lease the caller holds and keeps: it is
     * not released here.
     *
     * @throws IllegalStateException if a transaction is already active on this thread
     */
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
