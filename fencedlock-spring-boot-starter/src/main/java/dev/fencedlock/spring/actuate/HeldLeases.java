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
public final class HeldLeases implements LockEventListener {
    private final Clock clock;
    private final Map<Lease, Grant> held = new ConcurrentHashMap<>();

    public HeldLeases() {
        this(Clock.systemUTC());
    }

    /** @param clock the wall clock the grant times are read from */
    public HeldLeases(Clock clock) {
        this.clock = clock;
    }

    /** When a lease was granted, and to which thread: the one that called acquire. */
    private record Grant(Instant since, String thread) {}

    /**
     * One held lease.
     *
     * @param timeLeftMillis the lease's remaining validity ({@link Lease#remaining()}), in milliseconds
     * @param since when it was granted (wall clock, ISO-8601)
     * @param thread the name of the thread that acquired it, which holds it unless the application
     *     handed the lease to another
     */
    public record Held(String lockName, long token, String backend, long timeLeftMillis, String since, String thread) {}

    @Override
    public void leaseGranted(Lease lease) {
        held.put(lease, new Grant(clock.instant(), Thread.currentThread().getName()));
    }

    @Override
    public void leaseEnded(Lease lease) {
        held.remove(lease);
    }

    /** The leases held now, oldest grant first; empty when none is held. */
    public List<Held> snapshot() {
        return held.entrySet().stream()
                .sorted(Comparator.comparing(entry -> entry.getValue().since()))
                .map(entry -> {
                    Lease lease = entry.getKey();
                    Grant grant = entry.getValue();
                    return new Held(
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
