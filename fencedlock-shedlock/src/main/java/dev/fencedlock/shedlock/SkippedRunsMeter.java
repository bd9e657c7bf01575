package dev.fencedlock.shedlock;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The Micrometer counter {@value #NAME}, tagged {@code reason=unavailable}: runs skipped because the
 * backend could not answer. Registered at zero when a registry is bound, so alerts find it before
 * the first skip; skips before any registry is bound are not counted. Lock names are never tags.
 * Thread-safe.
 */
final class SkippedRunsMeter implements SkippedRuns, MeterBinder {
    static final String NAME = "fencedlock.shedlock.skipped";

    private final List<Counter> counters = new CopyOnWriteArrayList<>();

    @Override
    public void bindTo(MeterRegistry registry) {
        counters.add(Counter.builder(NAME)
                .description("ShedLock runs skipped because the lock backend could not answer")
                .tag("reason", "unavailable")
                .register(registry));
    }

    @Override
    public void unavailable() {
        counters.forEach(Counter::increment);
    }
}
