package dev.fencedlock.spring.app;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.CurrentLease;
import dev.fencedlock.spring.Locked;
import dev.fencedlock.testkit.await.Await;
import java.time.Duration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/** The service under test: one order per call, under the SKU's lock, through Spring Data repositories. */
@Service
public class Inventory {
    private final Items items;
    private final Orders orders;
    private final JdbcTemplate jdbc;

    public Inventory(Items items, Orders orders, JdbcTemplate jdbc) {
        this.items = items;
        this.orders = orders;
        this.jdbc = jdbc;
    }

    /** Sells one unit of {@code sku} as {@link #order} does, and returns the number {@code probe} reads after that. */
    @Locked(value = "'inventory:' + #sku", waitTime = "30s")
    @Transactional
    public long fenceRowUpdatesWhileOrdering(String sku, String probe) {
        order(sku, "probe");
        return Long.parseLong(jdbc.queryForObject(probe, String.class));
    }

    /** Sells one unit of {@code sku}; false when sold out. */
    @Locked(value = "'inventory:' + #sku", waitTime = "30s")
    @Transactional
    public boolean order(String sku, String worker) {
        Item item = items.findById(sku).orElseThrow();
        if (item.quantity() <= 0) {
            return false;
        }
        item.takeOne();
        orders.save(new Order(sku, worker, CurrentLease.get().orElseThrow().token()));
        return true;
    }

    /** Like {@link #order}, on a fixed lease, and stalls after reading until the lease has run out. */
    @Locked(value = "'inventory:' + #sku", waitTime = "30s", leaseTime = "300ms")
    @Transactional
    public boolean orderStallingPastLease(String sku, String worker) throws InterruptedException {
        Item item = items.findById(sku).orElseThrow();
        item.takeOne();
        orders.save(new Order(sku, worker, CurrentLease.get().orElseThrow().token()));
        awaitExpiry(CurrentLease.get().orElseThrow());
        return true;
    }

    /** Like {@link #order}, on a fixed lease of two seconds, which bounds its wait for the fence row. */
    @Locked(value = "'inventory:' + #sku", leaseTime = "2s")
    @Transactional
    public boolean orderOnShortLease(String sku, String worker) {
        return order(sku, worker);
    }

    /** Deletes the SKU's orders with a derived delete query, under the SKU's lock. */
    @Locked("'inventory:' + #sku")
    @Transactional
    public long cancelAll(String sku) {
        return orders.deleteBySku(sku);
    }

    /** Sets the stock through {@code save}, under the SKU's lock. */
    @Locked("'inventory:' + #sku")
    @Transactional
    public void restock(String sku, int quantity) {
        items.save(new Item(sku, quantity));
    }

    /** A locked method without a transaction of its own, calling one that has one. */
    @Locked("'inventory:' + #sku")
    public boolean orderThroughInnerTransaction(String sku, String worker, Inventory self) {
        return self.orderInOwnTransaction(sku, worker);
    }

    /** A locked transaction that begins a second, independent one while it is open. */
    @Locked("'inventory:' + #sku")
    @Transactional
    public boolean orderWithInnerNewTransaction(String sku, String worker, Inventory self) {
        items.findById(sku).orElseThrow().takeOne();
        return self.orderInNewTransaction(sku, worker);
    }

    /** The stock of {@code sku}, read in a read-only transaction under the SKU's lock. */
    @Locked("'inventory:' + #sku")
    @Transactional(readOnly = true)
    public int stockReadOnly(String sku) {
        return items.findById(sku).orElseThrow().quantity();
    }

    /** The stock of {@code sku}, read through the repository's own read-only transaction under the SKU's lock. */
    @Locked("'inventory:' + #sku")
    public int stockThroughRepository(String sku) {
        return items.findById(sku).orElseThrow().quantity();
    }

    /** A read-only locked transaction that begins a second, read-write one. */
    @Locked("'inventory:' + #sku")
    @Transactional(readOnly = true)
    public boolean orderInNewTransactionFromReadOnly(String sku, String worker, Inventory self) {
        items.findById(sku).orElseThrow();
        return self.orderInNewTransaction(sku, worker);
    }

    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public boolean orderInNewTransaction(String sku, String worker) {
        return orderInOwnTransaction(sku, worker);
    }

    @Transactional
    public boolean orderInOwnTransaction(String sku, String worker) {
        Item item = items.findById(sku).orElseThrow();
        item.takeOne();
        orders.save(new Order(sku, worker, CurrentLease.get().orElseThrow().token()));
        return true;
    }

    public static void awaitExpiry(Lease lease) throws InterruptedException {
        Await.until("lease " + lease.token() + " expired", Duration.ofSeconds(30), () -> !lease.isValid());
    }
}
