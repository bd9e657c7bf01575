package dev.fencedlock.jdbcprovider.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wakes a thread of this JVM that waits for a lock when it is released: by a lease of this JVM, or
 * (on PostgreSQL) by anyone, as reported by {@code NOTIFY}. A wake-up is only a hint to try again
 * now; waiters still poll, so a lost wake-up costs latency, never correctness.
 *
 * <p>A release wakes one waiter of its key, not all of them: only one can take the lock, and a
 * hundred waiters trying at once would each take a connection for nothing, starving the holders'
 * renewals and releases of the same pool. The wake-up is kept until a waiter takes it, so a release
 * that comes while every waiter is between attempts is not lost; wake-ups do not add up beyond one.
 *
 * <p>Keys are table-qualified lock keys; an entry lives only while a thread waits on it.
 * Thread-safe. Waiters park on a {@link Condition}, not in {@code Object.wait}, so a virtual thread
 * waiting for a lock leaves its carrier free on every Java version.
 */
final class ReleaseSignals {
    /** Shared by every jdbc client in this JVM: a release by one client wakes the others' waiters. */
    static final ReleaseSignals SHARED = new ReleaseSignals();

    private final Map<String, Signal> signals = new ConcurrentHashMap<>();

    private static final class Signal {
        final ReentrantLock lock = new ReentrantLock();
        final Condition released = lock.newCondition();
        boolean wakeUp; // guarded by lock: a release no waiter has taken yet
        int waiters; // guarded by signals' compute
    }

    /**
     * A ticket to wait on {@code key}; take it before the attempt whose failure leads to waiting, so
     * that a release after that attempt is not missed.
     */
    Ticket ticket(String key) {
        Signal signal = signals.compute(key, (k, s) -> {
            Signal current = s == null ? new Signal() : s;
            current.waiters++;
            return current;
        });
        return new Ticket(key, signal);
    }

    /** Wakes one thread waiting on {@code key}, or the next one to wait. */
    void signal(String key) {
        Signal signal = signals.get(key);
        if (signal != null) {
            signal.lock.lock();
            try {
                signal.wakeUp = true;
                signal.released.signal();
            } finally {
                signal.lock.unlock();
            }
        }
    }

    /** Wakes one waiter of every key, e.g. after notifications may have been missed. */
    void signalAll() {
        signals.keySet().forEach(this::signal);
    }

    /** One thread's wait on one key; close it when done waiting. Confined to that thread. */
    final class Ticket implements AutoCloseable {
        private final String key;
        private final Signal signal;

        private Ticket(String key, Signal signal) {
            this.key = key;
            this.signal = signal;
        }

        /**
         * Waits up to {@code nanos} for a release of the key that no other waiter has taken. Returns
         * at once, taking it, if one is there.
         *
         * @return whether this thread took a release; false if the time ran out
         */
        boolean await(long nanos) throws InterruptedException {
            long left = nanos;
            signal.lock.lock();
            try {
                while (!signal.wakeUp) {
                    if (left <= 0) {
                        return false;
                    }
                    left = signal.released.awaitNanos(left);
                }
                signal.wakeUp = false;
                return true;
            } finally {
                signal.lock.unlock();
            }
        }

        @Override
        public void close() {
            signals.computeIfPresent(key, (k, s) -> --s.waiters == 0 ? null : s);
        }
    }
}
