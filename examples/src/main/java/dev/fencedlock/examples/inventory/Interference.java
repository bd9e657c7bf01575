package dev.fencedlock.examples.inventory;

import dev.fencedlock.Lease;
import dev.fencedlock.testkit.faults.StaleHolders;
import java.time.Duration;

/**
 * A fault injected into one order: after its lock was granted and before its transaction begins
 * ({@link #beforeTransaction}), or inside the transaction, after the stock was read and decremented
 * and before the write is flushed ({@link #duringTransaction}).
 */
interface Interference {
    /** Nothing happens: the ordinary case. */
    Interference NONE = new Interference() {};

    /** Called with the lock held (by {@code held}) and no transaction begun yet. */
    default void beforeTransaction(Lease held, String sku) throws Exception {}

    /** Called inside the transaction, with the fence value the transaction read. */
    default void duringTransaction(String lockName, String sku, long fenceRead) throws Exception {}

    /** The worker pauses, as a process in a long GC pause would, past its lease. */
    static Interference stall(Duration pause) {
        return new Interference() {
            @Override
            public void duringTransaction(String lockName, String sku, long fenceRead) throws InterruptedException {
                Thread.sleep(pause.toMillis());
            }
        };
    }

    /**
     * The lock fails under the worker right after it was granted, while its lease still looks
     * valid (think of a Redis node that lost its data, or an operator deleting a "stuck" lock,
     * during a pause of the worker): the grant is deleted on the backend, and a newer holder takes
     * the lock and sells a unit of the same SKU before the worker's own transaction begins. That
     * transaction's first statement, the fence guard, then meets the newer token in the database,
     * which refuses it. The newer holder's order is counted in {@code tally} like any other.
     */
    static Interference breakLock(StaleHolders breaker, OrderPlacer placer, WorkerTally tally) {
        return new Interference() {
            @Override
            public void beforeTransaction(Lease held, String sku) throws InterruptedException {
                breaker.takeAway(held);
                OrderOutcome newer = placer.place(sku, "newer-holder", NONE, tally.waits());
                tally.count(newer);
                if (newer == OrderOutcome.SOLD) {
                    tally.noteBrokenLockOvertaken();
                }
            }
        };
    }
}
