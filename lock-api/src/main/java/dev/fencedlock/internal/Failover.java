package dev.fencedlock.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.LockException;
import dev.fencedlock.LockUnavailableException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which backend a client's acquisitions go to when {@code fencedlock.fallback} is configured:
 *
 * <ol>
 *   <li>While the primary is believed up, acquisitions ask it first. The first of them that gets
 *       {@link LockUnavailableException} moves the client to the fallback (one log line, one {@link
 *       LockEventListener#backendSwitched} event).
 *   <li>While on the fallback, acquisitions go straight to it: none pays the primary's timeout. A
 *       probe on its own thread asks the primary every {@link #PROBE_INTERVAL} with a single
 *       zero-wait attempt on the lock {@value #PROBE_LOCK} (granted or taken both count as an
 *       answer).
 *   <li>Once the probe had an answer, the next acquisition moves the client back to the primary
 *       (log line and event again, with a null cause).
 * </ol>
 *
 * <p>Thread-safe.
 */
final class Failover implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Failover.class);

    /** How often the probe asks a primary that could not answer. */
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

    /** The lock the probe tries on the primary. */
    static final String PROBE_LOCK = "fencedlock:fallback-probe";

    private static final Duration PROBE_LEASE = Duration.ofSeconds(1);

    private final Backend primary;
    private final Backend fallback;
    private final LockEventListener listener;
    private final Duration probeInterval;
    private final AtomicBoolean onFallback = new AtomicBoolean();
    private final ScheduledExecutorService prober;
    private volatile boolean primaryAnswered;

    Failover(Backend primary, Backend fallback, LockEventListener listener, Duration probeInterval) {
        this.primary = primary;
        this.fallback = fallback;
        this.listener = listener;
        this.probeInterval = probeInterval;
        this.prober = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "fencedlock-" + primary.name() + "-probe");
            thread.setDaemon(true);
            return thread;
        });
    }

    Backend primary() {
        return primary;
    }

    Backend fallback() {
        return fallback;
    }

    /**
     * Whether an acquisition of {@code lockName} should ask the primary; moves the client back to
     * the primary when the probe has heard from it.
     */
    boolean usePrimary(String lockName) {
        if (!onFallback.get()) {
            return true;
        }
        if (primaryAnswered && onFallback.compareAndSet(true, false)) {
            log.info(
                    "Backend {} answers again; acquisitions return to it from fallback {}",
                    primary.name(),
                    fallback.name());
            tell(lockName, fallback.name(), primary.name(), null);
            return true;
        }
        return !onFallback.get();
    }

    /** The primary could not answer an acquisition of {@code lockName}: use the fallback until it does. */
    void primaryFailed(String lockName, LockUnavailableException cause) {
        if (!onFallback.compareAndSet(false, true)) {
            return;
        }
        primaryAnswered = false;
        log.warn(
                "Backend {} cannot answer; acquisitions go to fallback {} until it does: {}",
                primary.name(),
                fallback.name(),
                cause.getMessage());
        tell(lockName, primary.name(), fallback.name(), cause);
        scheduleProbe();
    }

    private void scheduleProbe() {
        try {
            prober.schedule(this::probe, probeInterval.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // the client is closing
        }
    }

    private void probe() {
        if (!onFallback.get()) {
            return;
        }
        try {
            Optional<Lease> lease = primary.provider().lock(PROBE_LOCK).tryAcquire(Duration.ZERO, PROBE_LEASE);
            lease.ifPresent(Lease::close);
            primaryAnswered = true;
            log.info("Backend {} answered the fallback probe", primary.name());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.debug("Backend {} still cannot answer: {}", primary.name(), e.toString());
            scheduleProbe();
        }
    }

    private void tell(String lockName, String from, String to, LockException cause) {
        try {
            listener.backendSwitched(lockName, from, to, cause);
        } catch (RuntimeException e) {
            log.warn("A LockEventListener threw on backendSwitched; ignored", e);
        }
    }

    @Override
    public void close() {
        prober.shutdownNow();
    }
}
