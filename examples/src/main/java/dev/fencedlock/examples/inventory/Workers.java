package dev.fencedlock.examples.inventory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * Runs the workers of this process: each sells units of the hot SKUs, spreading over them, until
 * it has seen every SKU sold out. The stalled worker pauses inside its first transaction.
 */
final class Workers {
    private final OrderPlacer placer;
    private final RunSettings settings;
    private final WorkerTally tally;
    private final IntFunction<Interference> firstOrderInterference;

    /**
     * @param firstOrderInterference the fault each worker (by index in this process) meets in its
     *     first order; {@link Interference#NONE} for most
     */
    Workers(
            OrderPlacer placer,
            RunSettings settings,
            WorkerTally tally,
            IntFunction<Interference> firstOrderInterference) {
        this.placer = placer;
        this.settings = settings;
        this.tally = tally;
        this.firstOrderInterference = firstOrderInterference;
    }

    /** Runs every worker to completion; rethrows the first worker failure. */
    void runAll() throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(settings.workers());
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < settings.workers(); i++) {
                int index = i;
                running.add(pool.submit(() -> {
                    runWorker(index);
                    return null;
                }));
            }
            for (Future<?> worker : running) {
                try {
                    worker.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException("A worker failed: " + e.getCause(), e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private void runWorker(int index) throws InterruptedException {
        String name = "worker-" + (settings.workerOffset() + index);
        boolean[] soldOut = new boolean[settings.skus()];
        int remainingSkus = settings.skus();
        Interference next = firstOrderInterference.apply(index);
        int attempt = settings.workerOffset() + index;
        while (remainingSkus > 0) {
            int sku = attempt++ % settings.skus();
            if (soldOut[sku]) {
                continue;
            }
            OrderOutcome outcome = placer.place(InventoryDatabase.skuName(sku), name, next, tally.waits());
            next = Interference.NONE;
            tally.count(outcome);
            if (outcome == OrderOutcome.SOLD_OUT) {
                soldOut[sku] = true;
                remainingSkus--;
            }
        }
    }
}
