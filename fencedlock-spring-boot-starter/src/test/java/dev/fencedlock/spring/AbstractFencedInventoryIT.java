package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockTimeoutException;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.spring.app.Counters;
import dev.fencedlock.spring.app.InheritedLocks;
import dev.fencedlock.spring.app.Inventory;
import dev.fencedlock.spring.app.InventoryApplication;
import dev.fencedlock.spring.app.Item;
import dev.fencedlock.spring.app.Items;
import dev.fencedlock.spring.app.Orders;
import dev.fencedlock.testkit.lease.BelievedValidLease;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The inventory service end to end in a Spring Boot application: {@code @Locked @Transactional}
 * methods writing through Spring Data repositories and {@code JdbcTemplate}, on a real database.
 * Subclasses choose the database.
 */
@SpringBootTest(classes = InventoryApplication.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
abstract class AbstractFencedInventoryIT {
    private static final int THREADS = 8;
    private static final int ORDERS_PER_THREAD = 50;

    @Autowired
    Inventory inventory;

    @Autowired
    Items items;

    @Autowired
    Orders orders;

    @Autowired
    Counters counters;

    @Autowired
    FencedTransactions fencedTransactions;

    @Autowired
    LockClient client;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    InheritedLocks inherited;

    @Autowired
    DataSource dataSource;

    @Autowired
    MeterRegistry meters;

    @AfterEach
    void clean() {
        jdbc.update("delete from orders");
        jdbc.update("delete from inventory");
        jdbc.update("delete from counters");
    }

    @Test
    void concurrentOrdersThroughRepositoriesLoseNothing() throws Exception {
        List<String> skus = List.of("sku-a", "sku-b", "sku-c");
        int initialEach = 100;
        for (String sku : skus) {
            inventory.restock(sku, initialEach);
        }
        AtomicInteger sold = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                String worker = "worker-" + t;
                int offset = t;
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < ORDERS_PER_THREAD; i++) {
                        if (inventory.order(skus.get((offset + i) % skus.size()), worker)) {
                            sold.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }

        int initial = initialEach * skus.size();
        int remaining = items.findAll().stream().mapToInt(Item::quantity).sum();
        assertThat(sold.get()).as("units sold").isEqualTo(Math.min(initial, THREADS * ORDERS_PER_THREAD));
        assertThat(sold.get() + remaining).as("sold + remaining = initial").isEqualTo(initial);
        assertThat(orders.count()).as("orders = sold").isEqualTo(sold.get());
        for (String sku : skus) {
            assertThat(items.findById(sku).orElseThrow().quantity() + orders.countBySku(sku))
                    .as("per SKU: remaining + orders = initial (%s)", sku)
                    .isEqualTo(initialEach);
        }
    }

    @Test
    void holderStalledPastItsFixedLeaseHasItsWriteRefusedAndRolledBack() throws Exception {
        inventory.restock("sku-stall", 10);

        assertThatThrownBy(() -> inventory.orderStallingPastLease("sku-stall", "stalled"))
                .isInstanceOf(FencedWriteRefusedException.class)
                .isInstanceOf(OptimisticLockingFailureException.class)
                .hasMessageContaining("inventory:sku-stall");

        assertThat(items.findById("sku-stall").orElseThrow().quantity()).isEqualTo(10);
        assertThat(orders.countBySku("sku-stall")).isZero();
        assertThat(inventory.order("sku-stall", "next"))
                .as("the lock was released")
                .isTrue();
        assertThat(items.findById("sku-stall").orElseThrow().quantity()).isEqualTo(9);
    }

    @Test
    void derivedDeleteAndSaveAreFencedToo() throws Exception {
        inventory.restock("sku-del", 5);
        inventory.order("sku-del", "w");
        inventory.order("sku-del", "w");
        long fenceAfterOrders = items.findById("sku-del").orElseThrow().fence();

        assertThat(inventory.cancelAll("sku-del")).isEqualTo(2);
        assertThat(orders.countBySku("sku-del")).isZero();
        assertThat(fenceAfterOrders)
                .as("the repository's save stamped the lease's token")
                .isPositive();
    }

    @Test
    void aLockedMethodCalledInsideATransactionIsRefusedBeforeLocking() throws Exception {
        inventory.restock("sku-inner", 5);
        try (Lease outer = client.lock("outer").acquire(Duration.ofSeconds(5))) {
            assertThatThrownBy(() -> fencedTransactions.run(outer, status -> inventory.order("sku-inner", "w")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("inside an active transaction")
                    .as("an unnamed transaction is described, not printed as null")
                    .hasMessageNotContaining("null");
        }
        assertThat(items.findById("sku-inner").orElseThrow().quantity()).isEqualTo(5);
        assertThat(client.lock("inventory:sku-inner").tryAcquire(Duration.ZERO))
                .as("the inner call never took the lock")
                .hasValueSatisfying(Lease::close);
    }

    /** A fenced entity saved with no lock: the advice names the starter's ways, not fencing-jpa's own. */
    @Test
    void aFencedEntityWrittenWithoutALockIsToldAboutLocked() {
        assertThatThrownBy(() -> items.save(new Item("sku-unlocked", 1)))
                .rootCause()
                .hasMessageContaining("No lease is bound")
                .hasMessageContaining("@Locked")
                .hasMessageContaining("FencedTransactions")
                .hasMessageNotContaining("Fencing.bind");
        assertThat(items.findById("sku-unlocked")).isEmpty();
    }

    @Test
    void aSecondNewTransactionInsideTheFencedOneIsRefusedInsteadOfWaitingForever() {
        inventory.restock("sku-new", 5);
        assertThatThrownBy(() -> inventory.orderWithInnerNewTransaction("sku-new", "w", inventory))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("REQUIRES_NEW");
        assertThat(items.findById("sku-new").orElseThrow().quantity()).isEqualTo(5);
        assertThat(orders.countBySku("sku-new")).isZero();
    }

    @Test
    void lockedOnAnInterfaceOrSuperclassMethodIsHonouredWithClassProxies() {
        assertThat(inherited.leaseFromInterface("k1")).isEqualTo("contract:k1");
        assertThat(inherited.leaseFromSuperclass("k2")).isEqualTo("base:k2");
    }

    @Test
    void readOnlyTransactionsInsideALockedCallWork() {
        inventory.restock("sku-ro", 5);
        assertThat(inventory.stockReadOnly("sku-ro")).isEqualTo(5);
        assertThat(inventory.stockThroughRepository("sku-ro")).isEqualTo(5);
    }

    @Test
    void requiresNewInsideAReadOnlyLockedTransactionIsAFencedTransaction() {
        inventory.restock("sku-ro-new", 5);
        assertThat(inventory.orderInNewTransactionFromReadOnly("sku-ro-new", "w", inventory))
                .isTrue();
        assertOneOrderUnderTheFence("sku-ro-new");
    }

    @Test
    void lockedMethodWithoutTransactionFencesTheTransactionItCalls() {
        inventory.restock("sku-outer", 5);
        assertThat(inventory.orderThroughInnerTransaction("sku-outer", "w", inventory))
                .isTrue();
        assertOneOrderUnderTheFence("sku-outer");
    }

    /** One unit of {@code sku}'s five was sold, by a transaction that entered the SKU's fence row. */
    private void assertOneOrderUnderTheFence(String sku) {
        assertThat(items.findById(sku).orElseThrow().quantity()).isEqualTo(4);
        assertThat(jdbc.queryForObject(
                        "select token from fencedlock_fence where lock_name = ?", Long.class, "inventory:" + sku))
                .as("the inner transaction entered the fence row")
                .isEqualTo(orders.findAll().get(0).token());
    }

    @Test
    void jdbcTemplateWriteOfALockedMethodWithoutTransactionNeverLandsUnfenced() throws Exception {
        counters.write("c-auto", 1);
        CountDownLatch newerWrote = new CountDownLatch(1);
        ExecutorService stale = Executors.newSingleThreadExecutor();
        try {
            Future<?> staleWrite = stale.submit(() -> {
                counters.writeWithoutTransactionAfterLeaseRanOut("c-auto", 99, newerWrote);
                return null;
            });
            // acquired only once the stalled holder's lease ran out
            fencedTransactions.run("counter:c-auto", Duration.ofSeconds(30), status -> {
                counters.write("c-auto", 10);
                return null;
            });
            newerWrote.countDown();
            assertThatThrownBy(() -> staleWrite.get(30, TimeUnit.SECONDS))
                    .cause()
                    .rootCause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("counter:c-auto")
                    .hasMessageContaining("outside any transaction");
        } finally {
            stale.shutdownNow();
        }
        assertThat(counters.read("c-auto"))
                .as("the newer holder's write stands")
                .isEqualTo(10);
    }

    @Test
    void aBusyFenceRowReachesTheCallerAsASpringConcurrencyFailure() throws Exception {
        inventory.restock("sku-busy", 5);
        Lease older = client.lock("inventory:sku-busy").acquire(Duration.ofSeconds(5));
        try (Connection held = dataSource.getConnection()) {
            held.setAutoCommit(false);
            // an older holder's transaction keeps the fence row after its lease was released
            FencedTransaction.of(FenceTable.standard(), held, older.lockName(), older.token(), Duration.ofSeconds(60))
                    .begin();
            older.close();
            try {
                assertThatThrownBy(() -> inventory.orderOnShortLease("sku-busy", "w"))
                        .isInstanceOf(ConcurrencyFailureException.class)
                        .hasMessageContaining("inventory:sku-busy");
            } finally {
                held.rollback();
            }
        }
        assertThat(items.findById("sku-busy").orElseThrow().quantity()).isEqualTo(5);
        assertThat(orders.countBySku("sku-busy")).isZero();
    }

    @Test
    void lockedMethodThatTouchesNoDatabaseStillRuns() {
        assertThat(counters.withoutDatabase(
                        "c-none", () -> CurrentLease.get().orElseThrow().lockName()))
                .isEqualTo("counter:c-none");
    }

    @Test
    void jdbcTemplateWriteOfAStaleHolderIsRefusedByTheFenceRow() throws Exception {
        Lease expired = client.lock("counter:c1").acquire(Duration.ofSeconds(5), Duration.ofMillis(200));
        Inventory.awaitExpiry(expired);
        long newer = fencedTransactions.run("counter:c1", Duration.ofSeconds(5), status -> {
            counters.write("c1", 10);
            return CurrentLease.get().orElseThrow().token();
        });
        // the old holder wakes up believing its lease valid (a pause right after its validity
        // check): only the fence can tell
        Lease believedValid = new BelievedValidLease(expired);

        assertThatThrownBy(() -> fencedTransactions.run(believedValid, status -> {
                    counters.write("c1", 99);
                    return null;
                }))
                .isInstanceOfSatisfying(FencedWriteRefusedException.class, refused -> {
                    assertThat(refused.lockName()).isEqualTo("counter:c1");
                    assertThat(refused.token()).isEqualTo(expired.token());
                    assertThat(refused.newerToken()).hasValue(newer);
                });
        assertThat(counters.readOrZero("c1")).isEqualTo(10);
    }

    @Test
    void jdbcTemplateHolderStalledPastItsFixedLeaseIsRolledBackAtCommit() {
        counters.write("c3", 5);
        assertThatThrownBy(() -> counters.incrementStallingPastLease("c3"))
                .isInstanceOfSatisfying(FencedWriteRefusedException.class, refused -> {
                    assertThat(refused.lockName()).isEqualTo("counter:c3");
                    assertThat(refused.newerToken())
                            .as("refused for its own expiry")
                            .isEmpty();
                });
        assertThat(counters.readOrZero("c3")).isEqualTo(5);
    }

    @Test
    void twoOverlappingTransactionsOfOneLockLoseNoJdbcTemplateUpdate() throws Exception {
        counters.write("c2", 0);
        CountDownLatch bothRead = new CountDownLatch(2);
        try (Lease lease = client.lock("counter:c2").acquire(Duration.ofSeconds(5))) {
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<?>> increments = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    increments.add(pool.submit(() -> fencedTransactions.run(lease, status -> {
                        long read = counters.read("c2");
                        bothRead.countDown();
                        // without the fence row both would read 0 here; with it the second waits
                        // at its guard until the first commits, so this wait runs out
                        awaitQuietly(bothRead);
                        counters.write("c2", read + 1);
                        return null;
                    })));
                }
                for (Future<?> increment : increments) {
                    increment.get(1, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(counters.readOrZero("c2")).as("no update lost").isEqualTo(2);
    }

    @Test
    void metersCountAcquisitionsLeasesAndRefusalsWithoutLockNames() throws Exception {
        inventory.restock("sku-meters", 10);
        double refusalsBefore = meters.counter("fencedlock.fence.refusals").count();
        long acquiredBefore = timerCount("local", "acquired");
        long timeoutsBefore = timerCount("local", "timeout");

        inventory.order("sku-meters", "w");
        assertThatThrownBy(() -> inventory.orderStallingPastLease("sku-meters", "stalled"))
                .isInstanceOf(FencedWriteRefusedException.class);
        try (Lease held = client.lock("inventory:sku-meters").acquire(Duration.ofSeconds(5))) {
            assertThat(meters.get("fencedlock.lease.active").gauge().value()).isGreaterThanOrEqualTo(1);
            assertThatThrownBy(() -> client.lock("inventory:sku-meters").acquire(Duration.ofMillis(50)))
                    .isInstanceOf(LockTimeoutException.class);
        }

        assertThat(timerCount("local", "acquired") - acquiredBefore).isGreaterThanOrEqualTo(3);
        assertThat(timerCount("local", "timeout") - timeoutsBefore).isEqualTo(1);
        assertThat(meters.counter("fencedlock.fence.refusals").count() - refusalsBefore)
                .isEqualTo(1.0);
        assertThat(meters.getMeters())
                .filteredOn(meter -> meter.getId().getName().startsWith("fencedlock."))
                .allSatisfy(meter -> assertThat(meter.getId().getTags())
                        .noneMatch(tag -> tag.getValue().contains("sku-meters")));
    }

    private long timerCount(String backend, String outcome) {
        Timer timer = meters.find("fencedlock.acquire")
                .tags("backend", backend, "outcome", outcome)
                .timer();
        return timer == null ? 0 : timer.count();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
