package dev.fencedlock.examples.inventory;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/** Counts order outcomes and shipping calls across workers, and lock waits. Thread-safe. */
final class WorkerTally {
    private final AtomicLongArray counts = new AtomicLongArray(OrderOutcome.values().length);
    private final AtomicLongArray calls = new AtomicLongArray(ShippingOutcome.values().length);
    private final WaitRecorder waits = new WaitRecorder();
    private final AtomicLong brokenLocksOvertaken = new AtomicLong();
    private final AtomicLong shippedUnderNewLease = new AtomicLong();
    private final AtomicLong lateCalls = new AtomicLong();
    private final AtomicLong lateCallsRefused = new AtomicLong();

    void count(OrderOutcome outcome) {
        counts.incrementAndGet(outcome.ordinal());
    }

    long get(OrderOutcome outcome) {
        return counts.get(outcome.ordinal());
    }

    void count(ShippingOutcome outcome) {
        calls.incrementAndGet(outcome.ordinal());
    }

    long get(ShippingOutcome outcome) {
        return calls.get(outcome.ordinal());
    }

    /** Writes the fence refused, before or in the database. */
    long staleRefused() {
        return get(OrderOutcome.REFUSED_LEASE_INVALID) + get(OrderOutcome.REFUSED_BY_DATABASE);
    }

    /** Shipping calls the fence refused, before sending or at the shipping service. */
    long staleCallsRefused() {
        return get(ShippingOutcome.REFUSED_BEFORE_SENDING) + get(ShippingOutcome.REFUSED_BY_RECEIVER);
    }

    /** Notes that a worker whose lock was broken saw another holder commit before its own write. */
    void noteBrokenLockOvertaken() {
        brokenLocksOvertaken.incrementAndGet();
    }

    long brokenLocksOvertaken() {
        return brokenLocksOvertaken.get();
    }

    /** Notes an order shipped under a later lease than the one that sold it. */
    void noteShippedUnderNewLease() {
        shippedUnderNewLease.incrementAndGet();
    }

    long shippedUnderNewLease() {
        return shippedUnderNewLease.get();
    }

    /** Notes the stalled worker's late shipping call, and whether the shipping service refused it. */
    void noteLateCall(boolean refused) {
        lateCalls.incrementAndGet();
        if (refused) {
            lateCallsRefused.incrementAndGet();
        }
    }

    long lateCalls() {
        return lateCalls.get();
    }

    long lateCallsRefused() {
        return lateCallsRefused.get();
    }

    WaitRecorder waits() {
        return waits;
    }

    /** Adds another process's order counts. */
    void add(Map<OrderOutcome, Long> other) {
        other.forEach((outcome, value) -> counts.addAndGet(outcome.ordinal(), value));
    }

    Map<OrderOutcome, Long> asMap() {
        Map<OrderOutcome, Long> map = new EnumMap<>(OrderOutcome.class);
        for (OrderOutcome outcome : OrderOutcome.values()) {
            map.put(outcome, get(outcome));
        }
        return map;
    }

    /**
     * The counts besides order outcomes and waits, by name, as a worker process reports them; {@link
     * #addCount} takes them back.
     */
    Map<String, Long> otherCounts() {
        Map<String, Long> map = new LinkedHashMap<>();
        for (ShippingOutcome outcome : ShippingOutcome.values()) {
            map.put(outcome.name(), get(outcome));
        }
        map.put("overtaken", brokenLocksOvertaken.get());
        map.put("shippedUnderNewLease", shippedUnderNewLease.get());
        map.put("lateCalls", lateCalls.get());
        map.put("lateCallsRefused", lateCallsRefused.get());
        return map;
    }

    /**
     * Adds a count {@link #otherCounts} named.
     *
     * @throws IllegalArgumentException for a name it does not know
     */
    void addCount(String name, long value) {
        switch (name) {
            case "overtaken" -> brokenLocksOvertaken.addAndGet(value);
            case "shippedUnderNewLease" -> shippedUnderNewLease.addAndGet(value);
            case "lateCalls" -> lateCalls.addAndGet(value);
            case "lateCallsRefused" -> lateCallsRefused.addAndGet(value);
            default -> calls.addAndGet(ShippingOutcome.valueOf(name).ordinal(), value);
        }
    }
}
