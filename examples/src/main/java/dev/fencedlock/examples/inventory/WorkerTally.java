package dev.fencedlock.examples.inventory;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/** Counts order outcomes across workers, and lock waits. Thread-safe. */
final class WorkerTally {
    private final AtomicLongArray counts = new AtomicLongArray(OrderOutcome.values().length);
    private final WaitRecorder waits = new WaitRecorder();
    private final AtomicLong brokenLocksOvertaken = new AtomicLong();

    void count(OrderOutcome outcome) {
        counts.incrementAndGet(outcome.ordinal());
    }

    long get(OrderOutcome outcome) {
        return counts.get(outcome.ordinal());
    }

    /** Writes the fence refused, before or in the database. */
    long staleRefused() {
        return get(OrderOutcome.REFUSED_LEASE_INVALID) + get(OrderOutcome.REFUSED_BY_DATABASE);
    }

    /** Notes that a worker whose lock was broken saw another holder commit before its own write. */
    void noteBrokenLockOvertaken() {
        brokenLocksOvertaken.incrementAndGet();
    }

    void addBrokenLocksOvertaken(long count) {
        brokenLocksOvertaken.addAndGet(count);
    }

    long brokenLocksOvertaken() {
        return brokenLocksOvertaken.get();
    }

    WaitRecorder waits() {
        return waits;
    }

    /** Adds another process's counts. */
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
}
