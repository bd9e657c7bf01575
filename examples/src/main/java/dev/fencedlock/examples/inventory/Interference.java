package dev.fencedlock.examples.inventory;

import java.time.Duration;

/**
 * A fault injected into one order's transaction, after the stock was read and decremented and
 * before the write is flushed.
 */
@FunctionalInterface
interface Interference {
    /** Nothing happens: the ordinary case. */
    Interference NONE = (lockName, sku, fenceRead) -> {};

    void duringTransaction(String lockName, String sku, long fenceRead) throws Exception;

    /** The worker pauses, as a process in a long GC pause would, past its lease. */
    static Interference stall(Duration pause) {
        return (lockName, sku, fenceRead) -> Thread.sleep(pause.toMillis());
    }

    /**
     * The lock fails under the worker while its lease still looks valid: the grant is deleted on
     * the backend, and the worker waits (up to {@code patience}) until another worker has taken the
     * lock and committed a sale of the same SKU.
     */
    static Interference breakLock(
            LockBreaker breaker, InventoryDatabase database, Duration patience, WorkerTally tally) {
        return (lockName, sku, fenceRead) -> {
            breaker.breakHolder(lockName);
            long deadline = System.nanoTime() + patience.toNanos();
            while (database.fence(sku) == fenceRead && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            if (database.fence(sku) != fenceRead) {
                tally.noteBrokenLockOvertaken();
            }
        };
    }
}
