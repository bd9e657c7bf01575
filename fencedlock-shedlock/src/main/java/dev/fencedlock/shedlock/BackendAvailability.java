package dev.fencedlock.shedlock;

import dev.fencedlock.LockUnavailableException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one provider's backend answers, as its lock attempts found it, told once per change: a
 * WARN when a run is first skipped because the backend could not answer, an INFO when it answers
 * again, and nothing for the runs skipped in between but the {@link SkippedRuns} count. A scheduled
 * job ticks through an outage, so a log line per run would bury everything else. Thread-safe: each
 * change is logged by exactly one of the threads that see it.
 */
final class BackendAvailability {
    private static final Logger LOG = LoggerFactory.getLogger(FencedLockProvider.class);

    private final String backend;
    private final SkippedRuns skipped;
    private final AtomicBoolean unavailable = new AtomicBoolean();
    private final AtomicLong skippedSinceUnavailable = new AtomicLong();

    BackendAvailability(String backend, SkippedRuns skipped) {
        this.backend = backend;
        this.skipped = skipped;
    }

    /** The run of {@code lockName} is skipped: the backend could not answer, as {@code failure} says. */
    void skipped(String lockName, LockUnavailableException failure) {
        skippedSinceUnavailable.incrementAndGet();
        skipped.unavailable();
        if (unavailable.compareAndSet(false, true)) {
            LOG.warn(
                    "The {} lock backend cannot answer: ShedLock runs are skipped until it does (first: lock"
                            + " '{}'). Logged once; an INFO follows when it answers again. {}",
                    backend,
                    lockName,
                    failure.getMessage());
        }
    }

    /** The backend answered a lock attempt (granted or held by another). */
    void answered() {
        if (unavailable.get() && unavailable.compareAndSet(true, false)) {
            LOG.info(
                    "The {} lock backend answers again: ShedLock runs resume ({} skipped while it could not)",
                    backend,
                    skippedSinceUnavailable.getAndSet(0));
        }
    }
}
