package dev.fencedlock.internal.local;

import dev.fencedlock.spi.TokenOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The state of every {@code local} lock in this JVM, shared by all local clients so that two
 * clients in one process exclude each other as two processes would.
 *
 * <p>Tokens follow the one token order of all backends ({@link TokenOrder}): a grant made when the
 * wall clock reads {@code t} ms gets {@code max(t << 16, previous + 1)}, where {@code previous} is
 * the last token this table issued for any name. One counter for the whole table keeps tokens
 * strictly increasing for every lock name, across every local client of the JVM and whatever the
 * wall clock does (a clock stepped back only makes tokens count up by one). Thread-safe.
 */
final class LocalLockTable {
    /** The table every local client of this JVM shares; its tokens read the system wall clock. */
    static final LocalLockTable SHARED = new LocalLockTable(System::currentTimeMillis);

    private final Map<String, Slot> slots = new ConcurrentHashMap<>();
    private final AtomicLong tokens = new AtomicLong();
    private final LongSupplier wallClockMillis;

    /**
     * A table of its own, for tests that pin the wall clock.
     *
     * @param wallClockMillis the wall clock tokens start from, in milliseconds since the epoch; a
     *     negative reading counts as 0
     */
    LocalLockTable(LongSupplier wallClockMillis) {
        this.wallClockMillis = wallClockMillis;
    }

    /** A successful grant: the holder identity to present later, and its token. */
    record Grant(Object holder, long token, long expiresAtNanos) {}

    /**
     * Waits until {@code deadlineNanos} for the lock and takes it for {@code leaseNanos}.
     *
     * @return the grant, or null if the lock stayed held until the deadline
     */
    Grant acquire(String name, long leaseNanos, long deadlineNanos, LongSupplier clock) throws InterruptedException {
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
                    return new Grant(holder, nextToken(), slot.expiresAtNanos);
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

    /** The next token in the token order, above every token this table issued or skipped. */
    private long nextToken() {
        long nowMillis = Math.max(0, wallClockMillis.getAsLong());
        return tokens.accumulateAndGet(nowMillis, TokenOrder::next);
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
    void forceRelease(String name) {
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
    boolean forceExpire(String name) {
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
     * @throws IllegalArgumentException if {@code count} is not positive, or so large that no token
     *     would be left above the skipped ones
     */
    long skipTokens(long count) {
        if (count <= 0) {
            throw new IllegalArgumentException("count must be positive, got " + count);
        }
        return tokens.accumulateAndGet(count, (last, by) -> {
            if (last > Long.MAX_VALUE - 1 - by) {
                throw new IllegalArgumentException(
                        "count must leave tokens below Long.MAX_VALUE, got " + by + " after token " + last);
            }
            return last + by;
        });
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
