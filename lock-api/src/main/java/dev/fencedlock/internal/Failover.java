package dev.fencedlock.internal;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockConfig.FallbackTakeover;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.LockException;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.internal.config.DurationFormat;
import dev.fencedlock.spi.AbstractLease;
import dev.fencedlock.spi.MonotonicClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which backend a client's acquisitions go to when {@code fencedlock.fallback} is configured, and
 * when each backend may grant. With {@link FallbackTakeover#WAIT_OUT} (the default) no lease of one
 * backend is granted while a lease of the other may still be valid, when every client sees what
 * this one sees:
 *
 * <ol>
 *   <li><b>Primary.</b> Acquisitions ask the primary. The first one that gets {@link
 *       LockUnavailableException} (or no answer within the bound {@link ClientLock} sets) moves the
 *       client to the next phase, at {@code t0} (one log line, one {@link
 *       LockEventListener#backendSwitched} event).
 *   <li><b>Down.</b> The fallback grants from {@code t0 + W(primary)} on, {@code W} being {@link
 *       #primaryWaitOut()}: every lease the primary granted before it failed has run out by then.
 *       Before that instant an acquisition waits for it if its wait reaches it, else it throws
 *       {@link LockUnavailableException} ({@link #notYet}). A probe on its own thread asks the
 *       primary every {@link #PROBE_INTERVAL} ({@link #askPrimary}: its status, then one
 *       acquisition).
 *   <li><b>Returning.</b> When the probe hears the primary at {@code t1}, every lease of the
 *       fallback stops renewing ({@link AbstractLease#stopRenewal}) and the primary grants from
 *       {@code t1 + W(fallback) + probe interval} on (the probe interval covers another client that
 *       hears the primary up to one probe later and stops its fallback leases then). Acquisitions
 *       before that instant wait or throw as above. If the probe hears the primary at least one
 *       probe interval before any client could have taken over ({@code t1 + probe interval <
 *       s + W(primary)}, {@code s} the start of this client's last acquisition the primary
 *       answered before it failed; no outage began before {@code s}), nothing was granted by any
 *       fallback, and the client returns to the primary at once.
 *   <li>Back on the primary: log line and event again, with a null cause.
 * </ol>
 *
 * <p>With {@link FallbackTakeover#IMMEDIATE} the fallback grants from {@code t0} and the primary
 * from {@code t1}; the fallback's leases still stop renewing at {@code t1}, so the overlap after a
 * switch back ends within the fallback's lease time.
 *
 * <p>Thread-safe: the phase and its instants are guarded by this object's monitor, which
 * acquisitions that wait for an instant also wait on.
 */
final class Failover implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Failover.class);

    /** How often the probe asks a primary that could not answer. */
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

    /**
     * The least time the primary's first attempt of an acquisition is given before the client
     * takes it for "cannot answer", when the caller's wait is shorter (see {@link ClientLock}).
     */
    static final Duration PRIMARY_ATTEMPT_FLOOR = Duration.ofSeconds(1);

    /** The lock the probe tries on a primary that does not report its status. */
    static final String PROBE_LOCK = "fencedlock:fallback-probe";

    private static final long MAX_NANOS = DurationFormat.MAX.toNanos();

    /** Where acquisitions of one moment go. */
    enum Phase {
        PRIMARY,
        DOWN,
        RETURNING
    }

    /**
     * The answer to "where does this acquisition go now": the primary, the fallback, or neither
     * before {@code untilNanos}.
     */
    record Route(Phase phase, boolean toPrimary, boolean toFallback, long untilNanos) {
        static final Route PRIMARY = new Route(Phase.PRIMARY, true, false, 0);
        static final Route FALLBACK = new Route(Phase.DOWN, false, true, 0);

        static Route waitUntil(Phase phase, long untilNanos) {
            return new Route(phase, false, false, untilNanos);
        }
    }

    private final Backend primary;
    private final Backend fallback;
    private final FallbackLeases fallbackLeases;
    private final LockEventListener listener;
    private final Duration probeInterval;
    private final FallbackTakeover takeover;
    private final Duration leaseTime;
    private final MonotonicClock clock;
    private final AtomicLong primaryFixedNanos = new AtomicLong();
    private final AtomicLong fallbackFixedNanos = new AtomicLong();
    private final ScheduledExecutorService prober;
    private final ExecutorService attempts;
    private final AtomicBoolean probeWarned = new AtomicBoolean();

    // guarded by this
    private Phase phase = Phase.PRIMARY;
    private boolean switchBackTold = true;
    private LockUnavailableException failure;
    private long downAtNanos;
    private Instant downAt;
    private long primaryWaitNanos;
    private long takeoverAtNanos;
    private long backAtNanos;
    private Instant backAt;
    private long fallbackWaitNanos;
    private long switchBackAtNanos;
    private boolean primaryAnswered;
    private long lastAnswerNanos;

    /**
     * @param fallbackLeases the listener the fallback's runtime reports to, so that its leases can
     *     be stopped at a switch back
     */
    Failover(
            Backend primary,
            Backend fallback,
            FallbackLeases fallbackLeases,
            LockEventListener listener,
            LockConfig config,
            Duration probeInterval,
            MonotonicClock clock) {
        this.primary = primary;
        this.fallback = fallback;
        this.fallbackLeases = fallbackLeases;
        this.listener = listener;
        this.probeInterval = probeInterval;
        this.takeover = config.fallbackTakeover();
        this.leaseTime = config.leaseTime();
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

    Backend primary() {
        return primary;
    }

    Backend fallback() {
        return fallback;
    }

    FallbackTakeover takeover() {
        return takeover;
    }

    /** Where the primary's bounded attempts run (see {@link BoundedAttempt}). */
    ExecutorService attempts() {
        return attempts;
    }

    /** Records a fixed lease time about to be asked of the primary (true) or the fallback. */
    void noteFixedLease(boolean ofPrimary, Duration leaseTime) {
        (ofPrimary ? primaryFixedNanos : fallbackFixedNanos).accumulateAndGet(saturated(leaseTime), Math::max);
    }

    /**
     * How long a lease of the primary may still be valid after it stopped answering: its own
     * {@link dev.fencedlock.spi.LockProvider#longestOutstandingLease()} when it knows, else this
     * client's figure, the larger of {@code fencedlock.lease-time} and the longest fixed lease this
     * client asked of it.
     */
    Duration primaryWaitOut() {
        return primary.provider().longestOutstandingLease().orElseGet(() -> ownFigure(primaryFixedNanos));
    }

    /**
     * How long a lease of the fallback may still be valid once it stops renewing: the larger of the
     * fallback's own figure and this client's. The fallback still answers then, so its leases run
     * to the end of their lease time even where its own figure (a session bound, say) is shorter.
     */
    Duration fallbackWaitOut() {
        Duration own = ownFigure(fallbackFixedNanos);
        return fallback.provider()
                .longestOutstandingLease()
                .filter(figure -> figure.compareTo(own) > 0)
                .orElse(own);
    }

    private Duration ownFigure(AtomicLong fixedNanos) {
        return Duration.ofNanos(Math.max(saturated(leaseTime), fixedNanos.get()));
    }

    /**
     * Where an acquisition of {@code lockName} goes now. Moves the client back to the primary once
     * its switch-back instant has passed, telling the listener (with {@code lockName}) the first
     * time.
     */
    Route route(String lockName) {
        boolean tell;
        Route route;
        synchronized (this) {
            long now = clock.nanoTime();
            if (phase == Phase.RETURNING && now - switchBackAtNanos >= 0) {
                enterPrimary();
            }
            switch (phase) {
                case PRIMARY -> route = Route.PRIMARY;
                case DOWN ->
                    route = now - takeoverAtNanos >= 0 ? Route.FALLBACK : Route.waitUntil(Phase.DOWN, takeoverAtNanos);
                default -> route = Route.waitUntil(Phase.RETURNING, switchBackAtNanos);
            }
            tell = phase == Phase.PRIMARY && !switchBackTold;
            switchBackTold = true;
        }
        if (tell) {
            log.info("Acquisitions return to backend {} from fallback {}", primary.name(), fallback.name());
            tell(lockName, fallback.name(), primary.name(), null);
        }
        return route;
    }

    /**
     * Whether this client keeps the primary ({@code ofPrimary}) or the fallback from granting now
     * although it may answer: the fallback before the takeover instant, both while the client waits
     * out the fallback's leases on its way back. False otherwise.
     */
    synchronized boolean withholds(boolean ofPrimary) {
        long now = clock.nanoTime();
        return switch (phase) {
            case PRIMARY -> false;
            case DOWN -> !ofPrimary && now - takeoverAtNanos < 0;
            case RETURNING -> now - switchBackAtNanos < 0;
        };
    }

    /** Whether a lease the fallback just granted may be handed out: only while the client is down. */
    synchronized boolean fallbackMayGrant() {
        return phase == Phase.DOWN && clock.nanoTime() - takeoverAtNanos >= 0;
    }

    /**
     * Waits until {@code untilNanos} or until the phase changes, whichever comes first.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    synchronized void awaitChange(Phase from, long untilNanos) throws InterruptedException {
        while (phase == from) {
            long left = untilNanos - clock.nanoTime();
            if (left <= 0) {
                return;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /**
     * The primary answered an acquisition (granted, or found the lock taken) that started at {@code
     * startNanos}. A grant while the client is down (an acquisition that was already on its way)
     * pushes the takeover out to a full wait-out after it.
     */
    synchronized void primaryAnswered(long startNanos, boolean granted) {
        if (!primaryAnswered || startNanos - lastAnswerNanos > 0) {
            lastAnswerNanos = startNanos;
            primaryAnswered = true;
        }
        if (granted && phase == Phase.DOWN && takeover == FallbackTakeover.WAIT_OUT) {
            long after = startNanos + primaryWaitNanos;
            if (after - takeoverAtNanos > 0) {
                takeoverAtNanos = after;
            }
        }
    }

    /**
     * The primary could not answer an acquisition of {@code lockName}: the fallback takes over, at
     * once or after the primary's wait-out.
     */
    void primaryFailed(String lockName, LockUnavailableException cause) {
        Duration waitOut = takeover == FallbackTakeover.WAIT_OUT ? primaryWaitOut() : Duration.ZERO;
        synchronized (this) {
            if (phase != Phase.PRIMARY) {
                return;
            }
            phase = Phase.DOWN;
            failure = cause;
            downAtNanos = clock.nanoTime();
            downAt = Instant.now();
            primaryWaitNanos = saturated(waitOut);
            takeoverAtNanos = downAtNanos + primaryWaitNanos;
            fallbackLeases.allowRenewal();
            notifyAll();
        }
        log.warn(
                "Backend {} cannot answer; fallback {} grants {}, until {} answers again: {}",
                primary.name(),
                fallback.name(),
                waitOut.isZero()
                        ? "at once (" + LockConfig.FALLBACK_TAKEOVER + "=immediate)"
                        : "from " + ms(downAt.plus(waitOut)) + ", once no lease " + primary.name()
                                + " may have granted can still be valid (" + DurationFormat.format(waitOut) + ")",
                primary.name(),
                cause.getMessage());
        tell(lockName, primary.name(), fallback.name(), cause);
        scheduleProbe();
    }

    /**
     * The probe heard the primary, having asked it at {@code askedAtNanos}: the fallback's leases
     * stop renewing, and acquisitions return to the primary at once or after the fallback's
     * wait-out.
     */
    void primaryAnswersAgain(long askedAtNanos) {
        Duration waitOut = fallbackWaitOut();
        String outcome;
        synchronized (this) {
            if (phase != Phase.DOWN) {
                return;
            }
            long now = clock.nanoTime();
            boolean nobodyTookOver = takeover == FallbackTakeover.WAIT_OUT
                    && primaryAnswered
                    && now + probeInterval.toNanos() - (lastAnswerNanos + primaryWaitNanos) < 0;
            backAtNanos = now;
            backAt = Instant.now();
            primaryAnswered(askedAtNanos, false);
            fallbackLeases.stopAll("the primary backend " + primary.name() + " answers again");
            if (takeover == FallbackTakeover.IMMEDIATE || nobodyTookOver) {
                enterPrimary();
                outcome = nobodyTookOver
                        ? ", before any fallback could take over; acquisitions return to it at once"
                        : "; acquisitions return to it at once (" + LockConfig.FALLBACK_TAKEOVER
                                + "=immediate), the fallback's leases run out without renewal";
            } else {
                phase = Phase.RETURNING;
                fallbackWaitNanos = saturated(waitOut) + probeInterval.toNanos();
                switchBackAtNanos = now + fallbackWaitNanos;
                outcome = "; the fallback's leases stop renewing and " + primary.name() + " grants from "
                        + ms(backAt.plusNanos(fallbackWaitNanos)) + ", once none of them can still be valid ("
                        + DurationFormat.format(Duration.ofNanos(fallbackWaitNanos)) + ")";
            }
            notifyAll();
        }
        log.info("Backend {} answers the fallback probe again{}", primary.name(), outcome);
    }

    /** Back to the primary; the next acquisition tells the listener. Called holding the monitor. */
    private void enterPrimary() {
        phase = Phase.PRIMARY;
        switchBackTold = false;
        failure = null;
        notifyAll();
    }

    /**
     * Why an acquisition of {@code lockName} with {@code wait} may not be granted now: the exception
     * for a {@code route} that waits beyond the caller's wait.
     */
    synchronized LockUnavailableException notYet(String lockName, Route route, Duration wait) {
        String opt = " " + LockConfig.FALLBACK_TAKEOVER + "=immediate grants at once instead, with two holders"
                + " overlapping (only fenced effects are safe then).";
        String waited = "; the wait of " + DurationFormat.format(wait) + " ends before that.";
        if (route.phase() == Phase.DOWN) {
            return new LockUnavailableException(
                    lockName,
                    "Lock '" + lockName + "' unavailable: backend " + primary.name() + " cannot answer since "
                            + ms(downAt) + " (as this client saw it) and fallback " + fallback.name()
                            + " grants from " + ms(downAt.plusNanos(takeoverAtNanos - downAtNanos))
                            + ", once no lease " + primary.name() + " may have granted can still be valid ("
                            + DurationFormat.format(Duration.ofNanos(primaryWaitNanos)) + ")" + waited + opt,
                    failure);
        }
        return new LockUnavailableException(
                lockName,
                "Lock '" + lockName + "' unavailable: backend " + primary.name() + " answers again since " + ms(backAt)
                        + " but grants from " + ms(backAt.plusNanos(switchBackAtNanos - backAtNanos))
                        + ", once no lease of fallback " + fallback.name() + " can still be valid (they stopped"
                        + " renewing; " + DurationFormat.format(Duration.ofNanos(fallbackWaitNanos))
                        + " with one probe interval)" + waited + opt,
                null);
    }

    private void scheduleProbe() {
        try {
            prober.schedule(this::probe, probeInterval.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // the client is closing
        }
    }

    private void probe() {
        synchronized (this) {
            if (phase != Phase.DOWN) {
                return;
            }
        }
        long asked = clock.nanoTime();
        try {
            if (askPrimary()) {
                primaryAnswersAgain(asked);
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        scheduleProbe();
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
                        fallback.name(),
                        e);
            } else {
                log.debug("The fallback probe of backend {} failed: {}", primary.name(), e.toString());
            }
            return false;
        }
    }

    /** The current phase, for tests and {@code toString}. */
    synchronized Phase phase() {
        return phase;
    }

    private void tell(String lockName, String from, String to, LockException cause) {
        try {
            listener.backendSwitched(lockName, from, to, cause);
        } catch (RuntimeException e) {
            log.warn("A LockEventListener threw on backendSwitched; ignored", e);
        }
    }

    private static Instant ms(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MILLIS);
    }

    private static long saturated(Duration duration) {
        return duration.compareTo(DurationFormat.MAX) >= 0 ? MAX_NANOS : duration.toNanos();
    }

    @Override
    public void close() {
        prober.shutdownNow();
        attempts.shutdownNow();
    }

    /**
     * The listener of the fallback's runtime: keeps the fallback's held leases, so that a switch
     * back can stop their renewal (also of a lease granted after the switch back by an acquisition
     * already on its way), and passes every event on to the client's listener.
     */
    static final class FallbackLeases implements LockEventListener {
        private final LockEventListener delegate;
        private final Set<Lease> held = ConcurrentHashMap.newKeySet();
        private volatile String stopReason;

        FallbackLeases(LockEventListener delegate) {
            this.delegate = delegate;
        }

        /** Stops renewal of every lease held now and of every lease granted until {@link #allowRenewal}. */
        void stopAll(String why) {
            stopReason = why;
            for (Lease lease : held) {
                stop(lease, why);
            }
        }

        void allowRenewal() {
            stopReason = null;
        }

        private static void stop(Lease lease, String why) {
            if (lease instanceof AbstractLease renewing) {
                renewing.stopRenewal(why);
            }
        }

        @Override
        public void leaseGranted(Lease lease) {
            held.add(lease);
            String why = stopReason;
            if (why != null) {
                stop(lease, why);
            }
            delegate.leaseGranted(lease);
        }

        @Override
        public void leaseEnded(Lease lease) {
            held.remove(lease);
            delegate.leaseEnded(lease);
        }

        @Override
        public void leaseLost(Lease lease, LeaseLostException cause) {
            delegate.leaseLost(lease, cause);
        }

        @Override
        public void acquireFinished(String lockName, String backend, AcquireOutcome outcome, Duration elapsed) {
            delegate.acquireFinished(lockName, backend, outcome, elapsed);
        }

        @Override
        public void backendSwitched(String lockName, String from, String to, LockException cause) {
            delegate.backendSwitched(lockName, from, to, cause);
        }
    }
}
