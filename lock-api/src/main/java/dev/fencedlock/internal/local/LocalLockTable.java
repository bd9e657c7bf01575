package dev.fencedlock.internal.local;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

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
                    slot.onForcedExpiry = null;
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
        underLock(name, slot -> slot.holder == holder && slot.free());
    }

    /**
     * Drops whatever grant holds {@code name}, as an operator deleting a lock key would. The holder
     * learns of it at its next renewal or extension. Meant for tests of loss handling.
     */
    public void forceRelease(String name) {
        underLock(name, Slot::free);
    }

    /**
     * Registers what {@link #forceExpire} tells the lease of {@code holder}; does nothing if {@code
     * holder} no longer holds {@code name}.
     */
    void onForcedExpiry(String name, Object holder, Runnable callback) {
        underLock(name, slot -> {
            if (slot.holder == holder) {
                slot.onForcedExpiry = callback;
            }
            return true;
        });
    }

    /**
     * Lets the time of whatever grant holds {@code name} run out now, as if it had not been renewed:
     * the lock is free at once and the holder's lease is told at once (no longer valid, lease-lost
     * listeners called). Meant for tests of expiry handling.
     *
     * @return whether a grant held the lock
     */
    public boolean forceExpire(String name) {
        Runnable[] tell = new Runnable[1];
        boolean held = underLock(name, slot -> {
            if (slot.holder == null) {
                return false;
            }
            tell[0] = slot.onForcedExpiry;
            return slot.free();
        });
        if (tell[0] != null) {
            tell[0].run(); // outside the slot's lock: the lease takes its own locks
        }
        return held;
    }

    /** Runs {@code action} under the lock of {@code name}'s slot; false if there is no slot. */
    private boolean underLock(String name, Predicate<Slot> action) {
        Slot slot = slots.get(name);
        if (slot == null) {
            return false;
        }
        slot.lock.lock();
        try {
            return action.test(slot);
        } finally {
            slot.lock.unlock();
        }
    }

    /**
     * Moves the token counter forward so that the next grant's token is at least {@code count}
     * larger than the last one, as after grants this JVM did not see (another client, another
     * backend). Meant for tests of fences that must refuse the older tokens.
     *
     * @return the largest token skipped; the next grant's token is larger
     * @throws IllegalArgumentException if {@code count} is not positive
     */
    public long skipTokens(long count) {
        if (count <= 0) {
            throw new IllegalArgumentException("count must be positive, got " + count);
        }
        return tokens.addAndGet(count);
    }

    private static final class Slot {
        final ReentrantLock lock = new ReentrantLock();
        final Condition released = lock.newCondition();
        Object holder;
        Runnable onForcedExpiry;
        long expiresAtNanos;

        /** Frees the lock and wakes its waiters; true. Call under {@link #lock}. */
        boolean free() {
            holder = null;
            onForcedExpiry = null;
            released.signalAll();
            return true;
        }
    }
}
