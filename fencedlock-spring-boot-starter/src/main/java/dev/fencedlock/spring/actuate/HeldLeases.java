package dev.fencedlock.spring.actuate;

import dev.fencedlock.Lease;
import dev.fencedlock.LockEventListener;
import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leases this application's {@link dev.fencedlock.LockClient} holds now, kept from its {@link
 * LockEventListener} events for {@link FencedLockEndpoint}: a lease is added when it is granted
 * and removed when it is closed or lost, so the registry holds at most the leases held at once.
 * Leases of a client created without the context's listeners (an application's own {@code
 * LockClient} bean) are not seen. Thread-safe; every event returns at once.
 */
final class HeldLeases implements LockEventListener {
    private final Clock clock = Clock.systemUTC();
    private final Map<Lease, Grant> held = new ConcurrentHashMap<>();

    /** When a lease was granted, and to which thread: the one that called acquire. */
    private record Grant(Instant since, String thread) {}

    @Override
    public void leaseGranted(Lease lease) {
        held.put(lease, new Grant(clock.instant(), Thread.currentThread().getName()));
    }

    @Override
    public void leaseEnded(Lease lease) {
        held.remove(lease);
    }

    /** The leases held now, oldest grant first; empty when none is held. */
    List<FencedLockEndpoint.HeldLease> snapshot() {
        return held.entrySet().stream()
                .sorted(Comparator.comparing(entry -> entry.getValue().since()))
                .map(entry -> {
                    Lease lease = entry.getKey();
                    Grant grant = entry.getValue();
                    return new FencedLockEndpoint.HeldLease(
                            lease.lockName(),
                            lease.token(),
                            lease.backend(),
                            lease.remaining().toMillis(),
                            grant.since().toString(),
                            grant.thread());
                })
                .toList();
    }
}
