package dev.fencedlock.examples.inventory;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.jdbc.JdbcFencing;
import dev.fencedlock.jpa.Fencing;
import dev.fencedlock.jpa.FencingScope;
import dev.fencedlock.jpa.StaleFencingTokenException;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Sells one unit of a SKU: takes the SKU's lock with a fixed lease, decrements the stock and
 * records the order in one transaction with the lease bound for fencing, commits, and only then
 * releases the lock. Thread-safe.
 */
final class OrderPlacer {
    private static final Duration LOCK_WAIT = Duration.ofSeconds(30);

    private final LockClient locks;
    private final EntityManagerFactory database;
    private final Duration lease;

    OrderPlacer(LockClient locks, EntityManagerFactory database, Duration lease) {
        this.locks = locks;
        this.database = database;
        this.lease = lease;
    }

    /**
     * Attempts one sale.
     *
     * @param interference a fault injected after reading the stock and before writing
     * @param waits receives how long the lock took to get
     */
    OrderOutcome place(String sku, String worker, Interference interference, WaitRecorder waits)
            throws InterruptedException {
        FencedLock lock = locks.lock(lockName(sku));
        long askedAt = System.nanoTime();
        Optional<Lease> granted = lock.tryAcquire(LOCK_WAIT, lease);
        waits.record(System.nanoTime() - askedAt);
        if (granted.isEmpty()) {
            return OrderOutcome.LOCK_TIMEOUT;
        }
        try (Lease held = granted.get()) {
            interfereBefore(interference, held, sku);
            try (FencingScope fenced = Fencing.bind(held)) {
                return sellInTransaction(sku, worker, held.token(), interference);
            }
        }
    }

    static String lockName(String sku) {
        return "inventory:" + sku;
    }

    private OrderOutcome sellInTransaction(String sku, String worker, long token, Interference interference)
            throws InterruptedException {
        EntityManager entityManager = database.createEntityManager();
        EntityTransaction transaction = entityManager.getTransaction();
        try {
            transaction.begin();
            InventoryItem item = entityManager.find(InventoryItem.class, sku);
            if (item == null) {
                throw new IllegalStateException("No stock row for " + sku);
            }
            if (item.quantity() == 0) {
                transaction.rollback();
                return OrderOutcome.SOLD_OUT;
            }
            item.takeOne();
            interfere(interference, sku, item.fence());
            entityManager.persist(new OrderRecord(sku, worker, token, Instant.now()));
            transaction.commit();
            return OrderOutcome.SOLD;
        } catch (RuntimeException e) {
            rollBackAfter(transaction, e);
            Optional<StaleFencingTokenException> refusal = StaleFencingTokenException.findIn(e);
            if (refusal.isPresent()) {
                return refusal.get().reason() == FenceRefusedException.Reason.LEASE_NOT_VALID
                        ? OrderOutcome.REFUSED_LEASE_INVALID
                        : OrderOutcome.REFUSED_BY_DATABASE;
            }
            if (JdbcFencing.endedForIdling(e)) {
                return OrderOutcome.REFUSED_LEASE_INVALID;
            }
            throw e;
        } finally {
            entityManager.close();
        }
    }

    /**
     * Rolls back after {@code failure}, keeping it the exception that counts: when the database has
     * already ended the session (a fenced transaction left idle past its lease), the rollback fails
     * too and is only recorded as suppressed.
     */
    private static void rollBackAfter(EntityTransaction transaction, RuntimeException failure) {
        if (!transaction.isActive()) {
            return;
        }
        try {
            transaction.rollback();
        } catch (RuntimeException rollbackFailure) {
            failure.addSuppressed(rollbackFailure);
        }
    }

    private static void interfereBefore(Interference interference, Lease held, String sku) throws InterruptedException {
        try {
            interference.beforeTransaction(held, sku);
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Injecting the fault before the order for " + sku + " failed", e);
        }
    }

    private static void interfere(Interference interference, String sku, long fenceRead) throws InterruptedException {
        try {
            interference.duringTransaction(lockName(sku), sku, fenceRead);
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Injecting the fault into the order for " + sku + " failed", e);
        }
    }
}
