package dev.fencedlock.examples.spring;

import dev.fencedlock.LockClient;
import dev.fencedlock.spring.FencedWriteRefusedException;
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
        boolean ok = noOversell && conserved && ordersMatch && staleRejected;
        System.out.println(ok ? "All invariants hold." : "INVARIANT VIOLATED.");
        return ok ? 0 : 1;
    }

    private static String mark(boolean holds) {
        return holds ? "ok" : "FAILED";
    }
}
