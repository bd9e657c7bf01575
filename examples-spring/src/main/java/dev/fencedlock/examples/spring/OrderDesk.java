package dev.fencedlock.examples.spring;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.CurrentLease;
import dev.fencedlock.spring.FencedTransactions;
import dev.fencedlock.spring.Locked;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders: one unit of a SKU per call, under the SKU's lock, in one transaction that
 * decrements the stock and records the sale. The lock is taken before the transaction and
 * released after it commits; the fence refuses the writes of a holder whose lease ran out.
 */
@Service
public class OrderDesk {
    private final Stock stock;
    private final Sales sales;
    private final FencedTransactions fencedTransactions;

    OrderDesk(Stock stock, Sales sales, FencedTransactions fencedTransactions) {
        this.stock = stock;
        this.sales = sales;
        this.fencedTransactions = fencedTransactions;
    }

    /** Sells one unit; false when the SKU is sold out. */
    @Locked(value = "'inventory:' + #sku", waitTime = "30s", leaseTime = "10s")
    @Transactional
    public boolean order(String sku, String worker) {
        return sellOne(sku, worker, CurrentLease.get().orElseThrow().token());
    }

    /**
     * Sells one unit under a lease the caller took and keeps (the programmatic form of {@link
     * #order}); false when the SKU is sold out.
     *
     * @throws dev.fencedlock.spring.FencedWriteRefusedException when the fence refuses the lease
     */
    public boolean orderUnder(Lease lease, String sku, String worker) {
        return fencedTransactions.run(lease, status -> sellOne(sku, worker, lease.token()));
    }

    private boolean sellOne(String sku, String worker, long token) {
        StockItem item = stock.findById(sku).orElseThrow();
        if (item.quantity() <= 0) {
            return false;
        }
        item.takeOne();
        sales.save(new Sale(sku, worker, token));
        return true;
    }

    /**
     * Like {@link #order}, but the worker stalls (think of a long GC pause) after its writes until
     * its short fixed lease has run out, while other workers go on. Its commit must be refused.
     */
    @Locked(value = "'inventory:' + #sku", waitTime = "30s", leaseTime = "500ms")
    @Transactional
    public boolean orderThenStall(String sku, String worker) throws InterruptedException {
        StockItem item = stock.findById(sku).orElseThrow();
        if (item.quantity() <= 0) {
            return false;
        }
        item.takeOne();
        sales.save(new Sale(sku, worker, CurrentLease.get().orElseThrow().token()));
        stock.flush();
        Lease lease = CurrentLease.get().orElseThrow();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (lease.isValid() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return true;
    }

    /** Sets up a SKU's stock; fenced like every write of the entity. */
    @Locked("'inventory:' + #sku")
    @Transactional
    public void restock(String sku, int quantity) {
        stock.save(new StockItem(sku, quantity));
    }
}
