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
 * records the order in one transaction with the lease bound for fencing, commits, calls the
 * shipping service with the lease's token, and only then releases the lock. An order whose call
 * did not go through (the lease ran out after the commit, so the call was not sent or the service
 * had already seen a newer holder) is shipped again under a new lease of the same lock. Thread-safe.
 */
final class OrderPlacer {
    private static final Duration LOCK_WAIT = Duration.ofSeconds(30);
    /** Leases taken, one after another, to ship an order whose first call did not go through. */
    private static final int SHIPPING_ATTEMPTS = 5;

    private final LockClient locks;
    private final EntityManagerFactory database;
    private final Duration lease;
    private final ShippingClient shipping;

    OrderPlacer(LockClient locks, EntityManagerFactory database, Duration lease, ShippingClient shipping) {
        this.locks = locks;
        this.database = database;
        this.lease = lease;
        this.shipping = shipping;
    }

    /**
     * Attempts one sale: {@link #sell}, then {@link Sale#shipAndRelease}.
     *
     * @param interference a fault injected after reading the stock and before writing
     * @param waits receives how long the lock took to get
     */
    OrderOutcome place(String sku, String worker, Interference interference, WaitRecorder waits)
            throws InterruptedException {
        Sale sale = sell(sku, worker, interference, waits);
        sale.shipAndRelease();
        inject("after", sku, () -> interference.afterRelease(sku, sale.outcome()));
        return sale.outcome();
    }

    /**
     * Takes the lock and runs the sale's transaction, keeping the lock: the caller ships and
     * releases with {@link Sale#shipAndRelease}. The lock is released here only if this throws.
     */
    Sale sell(String sku, String worker, Interference interference, WaitRecorder waits) throws InterruptedException {
        FencedLock lock = locks.lock(lockName(sku));
        long askedAt = System.nanoTime();
        Optional<Lease> granted = lock.tryAcquire(LOCK_WAIT, lease);
        waits.record(System.nanoTime() - askedAt);
        if (granted.isEmpty()) {
            return new Sale(lock, null, sku, OrderOutcome.LOCK_TIMEOUT);
        }
        Lease held = granted.get();
        try {
            inject("before", sku, () -> interference.beforeTransaction(held, sku));
            try (FencingScope fenced = Fencing.bind(held)) {
                return new Sale(lock, held, sku, sellInTransaction(sku, worker, held.token(), interference));
            }
        } catch (InterruptedException | RuntimeException e) {
            held.close();
            throw e;
        }
    }

    /** A sale whose transaction is over and whose lock is still held. Not thread-safe. */
    final class Sale {
        private final FencedLock lock;
        private final Lease held;
        private final String sku;
        private final OrderOutcome outcome;

        private Sale(FencedLock lock, Lease held, String sku, OrderOutcome outcome) {
            this.lock = lock;
            this.held = held;
            this.sku = sku;
            this.outcome = outcome;
        }

        OrderOutcome outcome() {
            return outcome;
        }

        /**
         * Calls the shipping service if the unit was sold, then releases the lock; an order whose
         * call did not go through is shipped again under a new lease. Call once.
         */
        void shipAndRelease() throws InterruptedException {
            if (held == null) {
                return;
            }
            boolean shipped = true;
            try (held) {
                if (outcome == OrderOutcome.SOLD) {
                    shipped = shipping.ship(held, order()) == ShippingOutcome.SHIPPED;
                }
            }
            if (!shipped) {
                shipUnderNewLease();
            }
        }

        private OrderKey order() {
            return new OrderKey(sku, held.token());
        }

        /**
         * Ships the committed order under a new lease of the same lock; gives up after {@value
         * #SHIPPING_ATTEMPTS} leases, leaving the order unshipped for the summary to report.
         */
        private void shipUnderNewLease() throws InterruptedException {
            OrderKey order = order();
            for (int attempt = 0; attempt < SHIPPING_ATTEMPTS; attempt++) {
                Optional<Lease> granted = lock.tryAcquire(LOCK_WAIT, lease);
                if (granted.isPresent()) {
                    try (Lease again = granted.get()) {
                        if (shipping.ship(again, order) == ShippingOutcome.SHIPPED) {
                            return;
                        }
                    }
                }
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
            inject("into", sku, () -> interference.duringTransaction(lockName(sku), sku, item.fence()));
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

    /** One step of an injected fault. */
    @FunctionalInterface
    private interface FaultStep {
        void run() throws Exception;
    }

    /**
     * Runs {@code step}, passing interruption and unchecked exceptions on as they are and wrapping
     * any other in an {@link IllegalStateException} saying {@code where} ("before", "into", "after")
     * the order for {@code sku} it was injected.
     */
    private static void inject(String where, String sku, FaultStep step) throws InterruptedException {
        try {
            step.run();
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Injecting the fault " + where + " the order for " + sku + " failed", e);
        }
    }
}
