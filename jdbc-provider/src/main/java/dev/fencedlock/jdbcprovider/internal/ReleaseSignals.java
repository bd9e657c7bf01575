package dev.fencedlock.jdbcprovider.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Wakes the threads of this JVM that wait for a lock when it is released: by a lease of this JVM,
 * or (on PostgreSQL) by anyone, as reported by {@code NOTIFY}. A wake-up is only a hint to try
 * again now; waiters still poll, so a lost wake-up costs latency, never correctness.
 *
 * <p>Keys are table-qualified lock keys; an entry lives only while a thread waits on it.
 * Thread-safe.
 */
final class ReleaseSignals {
    /** Shared by every jdbc client in this JVM: a release by one client wakes the others' waiters. */
    static final ReleaseSignals SHARED = new ReleaseSignals();

    private final Map<String, Signal> signals = new ConcurrentHashMap<>();

    private static final class Signal {
        long generation; // guarded by this
        int waiters; // guarded by signals' compute
    }

    /** A ticket to wait on {@code key}; read it before the attempt whose failure leads to waiting. */
    Ticket ticket(String key) {
        Signal signal = signals.compute(key, (k, s) -> {
            Signal current = s == null ? new Signal() : s;
            current.waiters++;
            return current;
        });
        synchronized (signal) {
            return new Ticket(key, signal, signal.generation);
        }
    }

    /** Wakes every thread waiting on {@code key}. */
    void signal(String key) {
        Signal signal = signals.get(key);
        if (signal != null) {
            synchronized (signal) {
                signal.generation++;
                signal.notifyAll();
            }
        }
    }

    /** Wakes every waiter, e.g. after notifications may have been missed. */
    void signalAll() {
        signals.keySet().forEach(this::signal);
    }

    /** One thread's wait on one key; close it when done waiting. Confined to that thread. */
    final class Ticket implements AutoCloseable {
        private final String key;
        private final Signal signal;
        private long seen;

        private Ticket(String key, Signal signal, long seen) {
            this.key = key;
            this.signal = signal;
            this.seen = seen;
        }

        /**
         * Waits up to {@code nanos} for a release of the key signalled after this ticket was taken
         * or last woken. Returns at once if one already was.
         *
         * @return whether a release was signalled; false if the time ran out
         */
        boolean await(long nanos) throws InterruptedException {
            long deadline = System.nanoTime() + nanos;
            synchronized (signal) {
                while (signal.generation == seen) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    TimeUnit.NANOSECONDS.timedWait(signal, left);
                }
                seen = signal.generation;
                return true;
            }
        }

        @Override
        public void close() {
            signals.computeIfPresent(key, (k, s) -> --s.waiters == 0 ? null : s);
        }
    }
}
