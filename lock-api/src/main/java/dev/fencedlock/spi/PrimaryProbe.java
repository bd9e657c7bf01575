package dev.fencedlock.spi;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.Lease;
import dev.fencedlock.LockUnavailableException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of a client with a fallback: the probe that asks a primary which could not answer
 * whether it answers again, on a thread of its own, and the pool where the primary's acquisitions
 * run so that they can be given up ({@link BoundedAttempt}). Thread-safe; {@link #close()} stops
 * both.
 */
final class PrimaryProbe implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Failover.class);

    /** How often the probe asks a primary that could not answer. */
    static final Duration INTERVAL = Duration.ofSeconds(1);

    /**
     * The least time the primary's first attempt of an acquisition is given before the client
     * takes it for "cannot answer", when the caller's wait is shorter (see {@link ClientLock}).
     */
    static final Duration PRIMARY_ATTEMPT_FLOOR = Duration.ofSeconds(1);

    /** The lock the probe tries on a primary that does not report its status. */
    static final String PROBE_LOCK = "fencedlock:fallback-probe";

    private final Backend primary;
    private final String fallbackName;
    private final Duration interval;
    private final MonotonicClock clock;
    private final ScheduledExecutorService prober;
    private final ExecutorService attempts;
    private final AtomicBoolean probeWarned = new AtomicBoolean();

    PrimaryProbe(Backend primary, String fallbackName, Duration interval, MonotonicClock clock) {
        this.primary = primary;
        this.fallbackName = fallbackName;
        this.interval = interval;
        this.clock = clock;
        this.prober = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "fencedlock-" + primary.name() + "-probe");
            thread.setDaemon(true);
            return thread;
        });
        AtomicInteger threads = new AtomicInteger();
        this.attempts = Executors.newCachedThreadPool(runnable -> {
            Thread thread =
                    new Thread(runnable, "fencedlock-" + primary.name() + "-attempt-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    Duration interval() {
        return interval;
    }

    /** Where the primary's bounded attempts run (see {@link BoundedAttempt}). */
    ExecutorService attempts() {
        return attempts;
    }

    /**
     * Asks the primary every interval, starting one interval from now, for as long as {@code
     * stillDown} holds; when it answers, calls {@code answered} with the instant it was asked, and
     * stops.
     */
    void askUntilAnswered(BooleanSupplier stillDown, LongConsumer answered) {
        schedule(() -> {
            if (!stillDown.getAsBoolean()) {
                return;
            }
            long asked = clock.nanoTime();
            try {
                if (askPrimary()) {
                    answered.accept(asked);
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            askUntilAnswered(stillDown, answered);
        });
    }

    private void schedule(Runnable round) {
        try {
            prober.schedule(round, interval.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // the client is closing
        }
    }

    /**
     * Asks the primary whether it answers. Its {@link dev.fencedlock.spi.LockProvider#status} first,
     * where it reports one: {@code DOWN} is no. Otherwise (also for {@code UP}, which a backend may
     * read from a connection state that has not yet noticed a silent server) one zero-wait
     * acquisition of {@value #PROBE_LOCK} at {@code fencedlock.lease-time}, a lease time every
     * backend accepts in a client it let start, given up after {@link #PRIMARY_ATTEMPT_FLOOR}:
     * granted or taken is yes, {@link LockUnavailableException} or no answer in time is no.
     * Anything else is no too, logged at WARN the first time (a probe that cannot work would
     * otherwise keep the client on the fallback silently), at DEBUG after.
     *
     * @return whether the primary answered
     */
    boolean askPrimary() throws InterruptedException {
        try {
            BackendStatus status = primary.status();
            if (status.state() == BackendStatus.State.DOWN) {
                log.debug("Backend {} reports {} to the fallback probe", primary.name(), status);
                return false;
            }
            Optional<Lease> lease = BoundedAttempt.run(
                    attempts,
                    () -> primary.provider().lock(PROBE_LOCK).tryAcquire(Duration.ZERO),
                    PRIMARY_ATTEMPT_FLOOR.toNanos());
            lease.ifPresent(Lease::close);
            return true;
        } catch (LockUnavailableException | TimeoutException e) {
            log.debug("Backend {} still cannot answer: {}", primary.name(), e.toString());
            return false;
        } catch (RuntimeException e) {
            if (probeWarned.compareAndSet(false, true)) {
                log.warn(
                        "The fallback probe of backend {} failed for a reason other than the backend being"
                                + " unavailable; acquisitions stay on fallback {} until a probe succeeds"
                                + " (logged once, then at DEBUG)",
                        primary.name(),
                        fallbackName,
                        e);
            } else {
                log.debug("The fallback probe of backend {} failed: {}", primary.name(), e.toString());
            }
            return false;
        }
    }

    @Override
    public void close() {
        prober.shutdownNow();
        attempts.shutdownNow();
    }
}
