package dev.fencedlock.examples.spring;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.spring.FencedWriteRefusedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/** One run: stock the SKUs, let the workers and one stalling worker sell, check the invariants. */
@Component
class InventoryRun {
    private final OrderDesk desk;
    private final Stock stock;
    private final Sales sales;
    private final LockClient client;
    private final int workers;
    private final int skus;
    private final int stockPerSku;

    InventoryRun(
            OrderDesk desk,
            Stock stock,
            Sales sales,
            LockClient client,
            @Value("${inventory.workers}") int workers,
            @Value("${inventory.skus}") int skus,
            @Value("${inventory.stock}") int stockPerSku) {
        this.desk = desk;
        this.stock = stock;
        this.sales = sales;
        this.client = client;
        this.workers = workers;
        this.skus = skus;
        this.stockPerSku = stockPerSku;
    }

    /** Runs and prints the summary; 0 when every invariant holds, 1 otherwise. */
    int call() throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= skus; i++) {
            names.add("sku-" + i);
            desk.restock("sku-" + i, stockPerSku);
        }
        AtomicInteger sold = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger staleRefused = new AtomicInteger();
        OldBackendOutcome old = oldBackendInstanceOrders(names.get(0), sold);
        ExecutorService pool = Executors.newFixedThreadPool(workers + 1);
        try {
            List<Future<?>> running = new ArrayList<>();
            running.add(pool.submit(() -> {
                try {
                    desk.orderThenStall(names.get(0), "stalling-worker");
                    sold.incrementAndGet();
                } catch (FencedWriteRefusedException expected) {
                    staleRefused.incrementAndGet();
                }
                return null;
            }));
            for (int w = 0; w < workers; w++) {
                String worker = "worker-" + w;
                int offset = w;
                running.add(pool.submit(() -> {
                    for (int i = 0; ; i++) {
                        boolean anyLeft = false;
                        for (int k = 0; k < names.size(); k++) {
                            String sku = names.get((offset + i + k) % names.size());
                            try {
                                if (desk.order(sku, worker)) {
                                    sold.incrementAndGet();
                                    anyLeft = true;
                                    break;
                                }
                            } catch (FencedWriteRefusedException e) {
                                refused.incrementAndGet();
                                anyLeft = true;
                                break;
                            }
                        }
                        if (!anyLeft) {
                            return null;
                        }
                    }
                }));
            }
            for (Future<?> future : running) {
                future.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }

        int initial = skus * stockPerSku;
        int remaining = stock.findAll().stream().mapToInt(StockItem::quantity).sum();
        long orders = sales.count();
        boolean noOversell = stock.findAll().stream().allMatch(item -> item.quantity() >= 0);
        boolean conserved = sold.get() + remaining == initial;
        boolean ordersMatch = orders == sold.get();
        boolean staleRejected = staleRefused.get() == 1;

        System.out.printf(
                "%nfencedlock inventory example (Spring Boot), backend %s%n",
                client.config().backend());
        System.out.printf(
                "  workers %d (+1 stalling past its lease), SKUs %d x %d units%n", workers, skus, stockPerSku);
        System.out.printf(
                "  sold %d, remaining %d, orders %d, other refusals %d%n",
                sold.get(), remaining, orders, refused.get());
        System.out.printf("  [%s] no oversell%n", mark(noOversell));
        System.out.printf(
                "  [%s] sold + remaining = initial (%d + %d = %d)%n", mark(conserved), sold.get(), remaining, initial);
        System.out.printf("  [%s] orders = units sold (%d = %d)%n", mark(ordersMatch), orders, sold.get());
        System.out.printf("  [%s] the stalled worker's late write was refused%n", mark(staleRejected));
        System.out.printf(
                "  writes refused by the database's fence condition %d (%s)%n",
                old == OldBackendOutcome.REFUSED_BY_DATABASE ? 1 : 0, old.description());
        boolean databaseRefused = old == OldBackendOutcome.REFUSED_BY_DATABASE;
        System.out.printf(
                "  [%s] the write of an instance still on the old backend, holding the lock at the same time,"
                        + " was refused by the database%n",
                mark(databaseRefused));
        boolean ok = noOversell && conserved && ordersMatch && staleRejected && databaseRefused;
        System.out.println(ok ? "All invariants hold." : "INVARIANT VIOLATED.");
        return ok ? 0 : 1;
    }

    /** What became of the order of the instance on the old backend. */
    enum OldBackendOutcome {
        REFUSED_BY_DATABASE("the fence row held a newer token when its transaction began"),
        REFUSED_LEASE_INVALID("refused, but only because its lease had run out: not the database's doing"),
        ACCEPTED("ACCEPTED: a write under an overlapping lock got through"),
        NOT_SHOWN("not shown: the local backend lives in this process, so no second instance can hold its locks");

        private final String description;

        OldBackendOutcome(String description) {
            this.description = description;
        }

        String description() {
            return description;
        }
    }

    /**
     * An instance still on the old backend during a rolling switch of {@code fencedlock.backend}
     * (here the in-process {@code local} backend stands for it): it takes the SKU's lock from its
     * own lock service, so it holds the lock while a worker of this instance takes it from the
     * current backend and sells. Both believe their lease valid. When the old instance then sells,
     * its transaction's first statement meets the newer worker's larger token in the fence row
     * (tokens of all backends are in one order), and the database refuses it.
     */
    private OldBackendOutcome oldBackendInstanceOrders(String sku, AtomicInteger sold) throws InterruptedException {
        if (client.config().backend().equals("local")) {
            return OldBackendOutcome.NOT_SHOWN;
        }
        try (LockClient oldBackend =
                        LockClient.create(LockConfig.builder().backend("local").build());
                Lease stale =
                        oldBackend.lock("inventory:" + sku).acquire(Duration.ofSeconds(5), Duration.ofSeconds(30))) {
            // tokens of two backends are ordered by the granting clocks' milliseconds (TokenOrder):
            // the current backend's grant comes a few milliseconds later, as it would in any real overlap
            long later = System.currentTimeMillis() + 3;
            while (System.currentTimeMillis() <= later) {
                Thread.onSpinWait();
            }
            if (desk.order(sku, "worker-on-the-current-backend")) {
                sold.incrementAndGet();
            }
            try {
                if (desk.orderUnder(stale, sku, "instance-on-the-old-backend")) {
                    sold.incrementAndGet();
                }
                return OldBackendOutcome.ACCEPTED;
            } catch (FencedWriteRefusedException refused) {
                return refused.newerToken().isPresent()
                        ? OldBackendOutcome.REFUSED_BY_DATABASE
                        : OldBackendOutcome.REFUSED_LEASE_INVALID;
            }
        }
    }

    private static String mark(boolean holds) {
        return holds ? "ok" : "FAILED";
    }
}
