package dev.fencedlock.spring;

import dev.fencedlock.Lease;
import java.time.Duration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionCallback;

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
 * <p>The starter provides one bean of this type, on the application's transaction manager.
 * Thread-safe. {@link #withDefinition} and {@link #withTransactionManager} derive a copy with other
 * transaction settings or another transaction manager.
 */
public interface FencedTransactions {

    /**
     * A copy whose transactions use {@code definition} (isolation, timeout, read-only, name). The
     * propagation must begin a transaction of its own ({@code REQUIRED} or {@code REQUIRES_NEW}; a
     * transaction already active is refused anyway).
     *
     * @throws IllegalArgumentException for any other propagation
     */
    FencedTransactions withDefinition(TransactionDefinition definition);

    /**
     * A copy whose transactions run on {@code transactionManager} (for an application with more
     * than one), fenced the same way: the starter fences every transaction manager of the context.
     */
    FencedTransactions withTransactionManager(PlatformTransactionManager transactionManager);

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
    <T> T run(String lockName, Duration waitTime, TransactionCallback<T> work) throws InterruptedException;

    /**
     * Like {@link #run(String, Duration, TransactionCallback)} with a fixed lease of {@code
     * leaseTime} that is never renewed: the transaction cannot commit once it has run out.
     */
    <T> T runWithFixedLease(String lockName, Duration waitTime, Duration leaseTime, TransactionCallback<T> work)
            throws InterruptedException;

    /**
     * Runs {@code work} in a new transaction fenced by a lease the caller holds and keeps: it is
     * not released here.
     *
     * @throws IllegalStateException if a transaction is already active on this thread
     */
    <T> T run(Lease lease, TransactionCallback<T> work);
}
