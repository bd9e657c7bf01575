package dev.fencedlock.spring.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.spring.FenceRefusalListener;
import dev.fencedlock.spring.FencedWriteRefusedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Micrometer meters of one {@link dev.fencedlock.LockClient}, fed by its {@link LockEventListener}
 * events and by the starter's fence refusals:
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th></tr>
 *   <tr><td>{@value #ACQUIRE}</td><td>timer: each acquire call</td><td>{@code backend}, {@code outcome} ({@code acquired}, {@code not_acquired}, {@code timeout}, {@code unavailable}, {@code interrupted}, {@code failed})</td></tr>
 *   <tr><td>{@value #LEASES_ACTIVE}</td><td>gauge: leases granted and not yet ended</td><td>none</td></tr>
 *   <tr><td>{@value #LEASES_HELD}</td><td>timer: how long each lease was held, from its grant until it was closed or lost</td><td>{@code backend}</td></tr>
 *   <tr><td>{@value #LEASES_LOST}</td><td>counter: leases lost</td><td>{@code reason} ({@code expired}, {@code taken_over}, {@code renewal_failed}, {@code session_lost}, {@code other})</td></tr>
 *   <tr><td>{@value #FENCE_REFUSALS}</td><td>counter: fenced transactions refused</td><td>none</td></tr>
 * </table>
 *
 * <p>Lock names are never tags: there are as many as the application makes. The gauge, the refusal
 * counter and the lost-lease counter of every reason are registered when a registry is bound, at
 * zero, so dashboards and alerts find them before the first event; the timers appear with their
 * first event, since their {@code backend} tag is known only then. Events that arrive before a
 * registry is bound are not counted, except in the gauge, which reads the current count.
 * Thread-safe; every method returns quickly.
 */
final class LockMetrics implements LockEventListener, FenceRefusalListener, MeterBinder {
    static final String ACQUIRE = "fencedlock.acquire";
    static final String LEASES_ACTIVE = "fencedlock.lease.active";
    static final String LEASES_HELD = "fencedlock.lease.held";
    static final String LEASES_LOST = "fencedlock.lease.lost";
    static final String FENCE_REFUSALS = "fencedlock.fence.refusals";

    private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();
    private final AtomicInteger active = new AtomicInteger();
    /** Leases granted and not yet ended, to when ({@link System#nanoTime()}). */
    private final Map<Lease, Long> granted = new ConcurrentHashMap<>();

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder(LEASES_ACTIVE, active, AtomicInteger::get)
                .description("Leases granted and not yet closed or lost")
                .register(registry);
        Counter.builder(FENCE_REFUSALS)
                .description("Fenced transactions refused because a newer holder had written or the lease had run out")
                .register(registry);
        for (LeaseLostException.Reason reason : LeaseLostException.Reason.values()) {
            lost(registry, reason);
        }
        registries.add(registry);
    }

    private static Counter lost(MeterRegistry registry, LeaseLostException.Reason reason) {
        return Counter.builder(LEASES_LOST)
                .description("Leases lost, by reason")
                .tag("reason", tagValue(reason))
                .register(registry);
    }

    @Override
    public void acquireFinished(String lockName, String backend, AcquireOutcome outcome, Duration elapsed) {
        for (MeterRegistry registry : registries) {
            Timer.builder(ACQUIRE)
                    .description("Calls of acquire and tryAcquire, by how they ended")
                    .tag("backend", backend)
                    .tag("outcome", tagValue(outcome))
                    .register(registry)
                    .record(elapsed);
        }
    }

    @Override
    public void leaseGranted(Lease lease) {
        granted.put(lease, System.nanoTime());
        active.incrementAndGet();
    }

    @Override
    public void leaseEnded(Lease lease) {
        active.decrementAndGet();
        Long since = granted.remove(lease);
        if (since == null) {
            return;
        }
        long held = System.nanoTime() - since;
        for (MeterRegistry registry : registries) {
            Timer.builder(LEASES_HELD)
                    .description("How long leases were held, from the grant until they were closed or lost")
                    .tag("backend", lease.backend())
                    .register(registry)
                    .record(held, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void leaseLost(Lease lease, LeaseLostException cause) {
        for (MeterRegistry registry : registries) {
            lost(registry, cause.reason()).increment();
        }
    }

    @Override
    public void refused(FencedWriteRefusedException refusal) {
        for (MeterRegistry registry : registries) {
            registry.counter(FENCE_REFUSALS).increment();
        }
    }

    private static String tagValue(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
