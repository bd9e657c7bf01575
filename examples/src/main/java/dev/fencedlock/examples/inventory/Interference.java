package dev.fencedlock.examples.inventory;

import dev.fencedlock.Lease;
import dev.fencedlock.testkit.faults.StaleHolders;
import java.net.http.HttpRequest;
import java.time.Duration;

/**
 * A fault injected into one order: after its lock was granted and before its transaction begins
 * ({@link #beforeTransaction}), inside the transaction, after the stock was read and decremented
 * and before the write is flushed ({@link #duringTransaction}), or once the order is over and its
 * lease released ({@link #afterRelease}).
 */
interface Interference {
    /** Nothing happens: the ordinary case. */
    Interference NONE = new Interference() {};

    /** Called with the lock held (by {@code held}) and no transaction begun yet. */
    default void beforeTransaction(Lease held, String sku) throws Exception {}

    /** Called inside the transaction, with the fence value the transaction read. */
    default void duringTransaction(String lockName, String sku, long fenceRead) throws Exception {}

    /** Called when the order is over (shipped, if sold) and its lease released. */
    default void afterRelease(String sku, OrderOutcome outcome) throws Exception {}

    /**
     * The worker pauses inside its transaction past its lease, as a process in a long GC pause
     * would, and its write is refused by the fence. Its call to the shipping service reaches the
     * service late: the call, its {@code Fencing-Token} header set while the lease was valid, is held
     * up (think of a request sitting in a client's retry queue, or on a slow network, during the
     * pause) and arrives only after a newer holder of the lock has sold a unit and called the service
     * itself. The newer holder's sale is placed here, right after the stalled order, so that it comes
     * first on every backend; it is counted in {@code tally} like any other. The service's fence row
     * then holds the newer token, and the service refuses the late call with 409. The stalled
     * worker's own write was refused by the inventory database's fence, so the late call names an
     * order that never committed: had the service accepted it, it would have shipped a unit that was
     * not sold.
     */
    static Interference stallWithLateCall(
            Duration pause, ShippingClient shipping, OrderPlacer placer, WorkerTally tally) {
        return new Interference() {
            private HttpRequest lateCall;

            @Override
            public void beforeTransaction(Lease held, String sku) {
                lateCall = shipping.request(held, new OrderKey(sku, held.token()));
            }

            @Override
            public void duringTransaction(String lockName, String sku, long fenceRead) throws InterruptedException {
                Thread.sleep(pause.toMillis());
            }

            @Override
            public void afterRelease(String sku, OrderOutcome outcome) throws InterruptedException {
                if (outcome == OrderOutcome.SOLD || outcome == OrderOutcome.SOLD_OUT) {
                    return; // no stale order: the invariants report the stall that was not refused
                }
                tally.count(placer.place(sku, "newer-holder", NONE, tally.waits()));
                ShippingOutcome late = shipping.send(lateCall);
                tally.noteLateCall(late == ShippingOutcome.REFUSED_BY_RECEIVER);
            }
        };
    }

    /**
     * The lock fails under the worker right after it was granted, while its lease still looks
     * valid (think of a Redis node that lost its data, or an operator deleting a "stuck" lock,
     * during a pause of the worker): the grant is deleted on the backend, and a newer holder takes
     * the lock and sells a unit of the same SKU before the worker's own transaction begins. That
     * transaction's first statement, the fence guard, then meets the newer token in the database,
     * which refuses it. The newer holder calls the shipping service and releases the lock once the
     * worker's transaction is over: the worker's transaction must begin soon after the break, before
     * the backend tells the worker its lease is gone (ZooKeeper checks a fixed lease's node every
     * third of its validity), so that only the database stands in its way. The newer holder's order
     * is counted in {@code tally} like any other.
     */
    static Interference breakLock(StaleHolders breaker, OrderPlacer placer, WorkerTally tally) {
        return new Interference() {
            private OrderPlacer.Sale newer;

            @Override
            public void beforeTransaction(Lease held, String sku) throws InterruptedException {
                breaker.takeAway(held);
                newer = placer.sell(sku, "newer-holder", NONE, tally.waits());
                tally.count(newer.outcome());
                if (newer.outcome() == OrderOutcome.SOLD) {
                    tally.noteBrokenLockOvertaken();
                }
            }

            @Override
            public void afterRelease(String sku, OrderOutcome outcome) throws InterruptedException {
                newer.shipAndRelease();
            }
        };
    }
}
