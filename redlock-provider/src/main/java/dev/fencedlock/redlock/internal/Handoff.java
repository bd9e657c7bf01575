package dev.fencedlock.redlock.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wakes waiting acquirers when the lock they wait for is released, so that handing a lock over does
 * not wait for a polling delay.
 *
 * <ul>
 *   <li>In this client, each lock name with waiters has a queue: a release by a lease of this client
 *       wakes the longest-waiting thread at once ({@link Wake#LOCAL}).
 *   <li>Across clients, the release script publishes on the lock's channel; a {@link
 *       ReleaseSubscriber} listens to the channels of the names that have waiters here and wakes one
 *       waiter ({@link Wake#REMOTE}). Other processes get the same message at the same moment, so a
 *       remotely woken waiter still draws a short random delay before it tries.
 * </ul>
 *
 * <p>A wake-up is a permit that one waiter takes; it is kept if nobody is parked at that moment, so a
 * release that happens while a waiter is between attempts is not lost. Notifications are only a hint:
 * waiters also retry after their random delay, so a lost message costs latency, never safety.
 * Thread-safe.
 */
final class Handoff implements AutoCloseable {

    /** Why {@link Registration#await} returned. */
    enum Wake {
        TIMEOUT,
        LOCAL,
        REMOTE
    }

    private final ConcurrentHashMap<String, Waiters> waiters = new ConcurrentHashMap<>();
    private final AtomicLong localReleases = new AtomicLong();
    private volatile ReleaseSubscriber subscriber;

    /** Starts listening for releases of other clients through {@code subscriber}. */
    void listenWith(ReleaseSubscriber subscriber) {
        this.subscriber = subscriber;
    }

    /** Counts releases by this client; an acquirer compares it around its first registration. */
    long localReleases() {
        return localReleases.get();
    }

    /** The calling thread will wait for {@code name}; close the registration when done. */
    Registration register(String name) {
        boolean[] first = {false};
        Waiters queue = waiters.compute(name, (key, existing) -> {
            Waiters current = existing;
            if (current == null) {
                current = new Waiters();
                first[0] = true;
            }
            current.registered++;
            return current;
        });
        if (first[0]) {
            notifySubscriber();
        }
        return new Registration(name, queue);
    }

    /** A lease of this client released {@code name}. */
    void released(String name) {
        localReleases.incrementAndGet();
        Waiters queue = waiters.get(name);
        if (queue != null) {
            queue.offer(Wake.LOCAL);
        }
    }

    /** Another client released {@code name}, as its channel said. */
    void releasedElsewhere(String name) {
        Waiters queue = waiters.get(name);
        if (queue != null) {
            queue.offer(Wake.REMOTE);
        }
    }

    /**
     * Whether a release of {@code name} by another client would reach this client now. Until the
     * subscription is confirmed, waiters poll at a short interval instead of the retry delay.
     */
    boolean hearsReleasesOf(String name) {
        ReleaseSubscriber current = subscriber;
        return current != null && current.listeningTo(name);
    }

    /** The names that have waiters now. */
    Set<String> waitedFor() {
        return Set.copyOf(waiters.keySet());
    }

    private void notifySubscriber() {
        ReleaseSubscriber current = subscriber;
        if (current != null) {
            current.refresh();
        }
    }

    @Override
    public void close() {
        ReleaseSubscriber current = subscriber;
        if (current != null) {
            current.close();
        }
    }

    /** One thread's wait for one name. Confined to that thread. */
    final class Registration implements AutoCloseable {
        private final String name;
        private final Waiters queue;

        private Registration(String name, Waiters queue) {
            this.name = name;
            this.queue = queue;
        }

        /** Waits up to {@code nanos} for a release of the name. */
        Wake await(long nanos) throws InterruptedException {
            return queue.await(nanos);
        }

        @Override
        public void close() {
            boolean[] last = {false};
            waiters.computeIfPresent(name, (key, current) -> {
                current.registered--;
                if (current.registered == 0) {
                    last[0] = true;
                    return null;
                }
                return current;
            });
            if (last[0]) {
                notifySubscriber();
            }
        }
    }

    private static final class Waiters {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition released = lock.newCondition();
        private int registered; // changed only inside ConcurrentHashMap.compute for this name
        private Wake permit; // guarded by lock

        Wake await(long nanos) throws InterruptedException {
            lock.lockInterruptibly();
            try {
                long left = nanos;
                while (permit == null) {
                    if (left <= 0) {
                        return Wake.TIMEOUT;
                    }
                    left = released.awaitNanos(left);
                }
                Wake taken = permit;
                permit = null;
                return taken;
            } finally {
                lock.unlock();
            }
        }

        void offer(Wake wake) {
            lock.lock();
            try {
                permit = permit == Wake.LOCAL ? Wake.LOCAL : wake;
                released.signal();
            } finally {
                lock.unlock();
            }
        }
    }
}
