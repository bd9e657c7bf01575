package dev.fencedlock.internal.local;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The state of every {@code local} lock in this JVM, shared by all local clients so that two
 * clients in one process exclude each other as two processes would. Tokens come from one counter
 * for the whole JVM, so they grow strictly for every lock name however entries come and go.
 * Thread-safe.
 */
public final class LocalLockTable {
    /** The table every local client of this JVM shares. */
    public static final LocalLockTable SHARED = new LocalLockTable();

    private final Map<String, Slot> slots = new ConcurrentHashMap<>();
    private final AtomicLong tokens = new AtomicLong();

    /** A successful grant: the holder identity to present later, and its token. */
    public record Grant(Object holder, long token, long expiresAtNanos) {}

    /**
     * Waits until {@code deadlineNanos} for the lock and takes it for {@code leaseNanos}.
     *
     * @return the grant, or null if the lock stayed held until the deadline
     */
    Grant acquire(String name, long leaseNanos, long deadlineNanos, java.util.function.LongSupplier clock)
            throws InterruptedException {
        Slot slot = slots.computeIfAbsent(name, n -> new Slot());
        slot.lock.lockInterruptibly();
        try {
            while (true) {
                long now = clock.getAsLong();
                if (slot.holder == null || now - slot.expiresAtNanos >= 0) {
                    Object holder = new Object();
                    slot.holder = holder;
                    slot.expiresAtNanos = now + leaseNanos;
                    return new Grant(holder, tokens.incrementAndGet(), slot.expiresAtNanos);
                }
                long waitLeft = deadlineNanos - now;
                if (waitLeft <= 0) {
                    return null;
                }
                slot.released.await(Math.min(waitLeft, slot.expiresAtNanos - now), TimeUnit.NANOSECONDS);
            }
        } finally {
            slot.lock.unlock();
        }
    }

    /** Extends the grant if {@code holder} still holds it; returns false otherwise. */
    boolean extend(String name, Object holder, long leaseNanos, long nowNanos) {
        Slot slot = slots.get(name);
        if (slot == null) {
            return false;
        }
        slot.lock.lock();
        try {
            if (slot.holder != holder || nowNanos - slot.expiresAtNanos >= 0) {
                return false;
            }
            slot.expiresAtNanos = nowNanos + leaseNanos;
            return true;
        } finally {
            slot.lock.unlock();
        }
    }

    /** Releases the lock if {@code holder} still holds it; never touches another holder's grant. */
    void release(String name, Object holder) {
        Slot slot = slots.get(name);
        if (slot == null) {
            return;
        }
        slot.lock.lock();
        try {
            if (slot.holder == holder) {
                slot.holder = null;
                slot.released.signalAll();
            }
        } finally {
            slot.lock.unlock();
        }
    }

    /**
     * Drops whatever grant holds {@code name}, as an operator deleting a lock key would. The holder
     * learns of it at its next renewal or extension. Meant for tests of loss handling.
     */
    public void forceRelease(String name) {
        Slot slot = slots.get(name);
        if (slot == null) {
            return;
        }
        slot.lock.lock();
        try {
            slot.holder = null;
            slot.released.signalAll();
        } finally {
            slot.lock.unlock();
        }
    }

    private static final class Slot {
        final ReentrantLock lock = new ReentrantLock();
        final Condition released = lock.newCondition();
        Object holder;
        long expiresAtNanos;
    }
}
