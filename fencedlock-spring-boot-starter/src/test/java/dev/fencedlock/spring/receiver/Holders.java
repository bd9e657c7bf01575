package dev.fencedlock.spring.receiver;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.testkit.local.LocalLockFaults;
import java.time.Duration;
import java.util.UUID;

/**
 * The lock holders that call the receivers: real leases of the {@code local} backend on lock
 * {@code orders:<order>}. The backend's locks are this JVM's, whichever client takes them, so a
 * test may use the receiver application's own client as the senders'.
 */
final class Holders {
    private Holders() {}

    /** A new order id, so that each test has locks and rows of its own. */
    static String order() {
        return UUID.randomUUID().toString().substring(0, 12);
    }

    static String lockName(String order) {
        return "orders:" + order;
    }

    static Lease acquire(LockClient client, String order) throws InterruptedException {
        return client.lock(lockName(order)).acquire(Duration.ofSeconds(10), Duration.ofMinutes(2));
    }

    /**
     * The next holder's lease, after the current holder lost its own without knowing it yet (it
     * paused past its lease): the paused holder still finds its lease valid, the new one has a larger
     * token.
     */
    static Lease acquireAfterLosing(LockClient client, String order) throws InterruptedException {
        LocalLockFaults.loseLease(lockName(order));
        return acquire(client, order);
    }
}
