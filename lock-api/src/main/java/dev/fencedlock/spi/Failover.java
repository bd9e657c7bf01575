package dev.fencedlock.spi;

import dev.fencedlock.LockConfig;
import dev.fencedlock.LockConfig.FallbackTakeover;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.LockException;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.spi.FailoverRules.Phase;
import dev.fencedlock.spi.FailoverRules.Route;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
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
 *       primary every {@link PrimaryProbe#INTERVAL} ({@link PrimaryProbe#askPrimary}: its status,
 *       then one acquisition).
 *   <li><b>Returning.</b> When the probe hears the primary at {@code t1}, every lease of the
 *       fallback stops renewing ({@link dev.fencedlock.spi.AbstractLease#stopRenewal}) and the primary grants from
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
 * <p>The rules of the phases are {@link FailoverRules} (pure, tested without threads); the probe
 * and the primary's attempts run on {@link PrimaryProbe}'s threads; this class joins them to the
 * backends, the clock, the log and the listener.
 *
 * <p>Thread-safe: the rules are guarded by one lock, whose condition acquisitions that wait for an
 * instant wait on (a {@link Condition}, not {@code Object.wait}: a waiting virtual thread leaves its
 * carrier free on every Java version).
 */
final class Failover implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Failover.class);

    private static final long MAX_NANOS = DurationFormat.MAX.toNanos();

    private final Backend primary;
    private final Backend fallback;
    private final FallbackLeases fallbackLeases;
    private final LockEventListener listener;
    private final Duration leaseTime;
    private final MonotonicClock clock;
    private final AtomicLong primaryFixedNanos = new AtomicLong();
    private final AtomicLong fallbackFixedNanos = new AtomicLong();
    private final PrimaryProbe probe;
    private final ReentrantLock guard = new ReentrantLock();
    private final Condition phaseChanged = guard.newCondition();
    private final FailoverRules rules; // guarded by guard

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
        this.leaseTime = config.leaseTime();
        this.clock = clock;
        this.probe = new PrimaryProbe(primary, fallback.name(), probeInterval, clock);
        this.rules = new FailoverRules(config.fallbackTakeover(), probeInterval.toNanos());
    }

    Backend primary() {
        return primary;
    }

    Backend fallback() {
        return fallback;
    }

    FallbackTakeover takeover() {
        return rules.takeover();
    }

    /** Where the primary's bounded attempts run (see {@link BoundedAttempt}). */
    ExecutorService attempts() {
        return probe.attempts();
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
        guard.lock();
        try {
            Phase before = rules.phase();
            route = rules.route(clock.nanoTime());
            if (rules.phase() != before) {
                phaseChanged.signalAll();
            }
            tell = rules.takeSwitchBackNotice();
        } finally {
            guard.unlock();
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
    boolean withholds(boolean ofPrimary) {
        guard.lock();
        try {
            return rules.withholds(ofPrimary, clock.nanoTime());
        } finally {
            guard.unlock();
        }
    }

    /** Whether a lease the fallback just granted may be handed out: only while the client is down. */
    boolean fallbackMayGrant() {
        guard.lock();
        try {
            return rules.fallbackMayGrant(clock.nanoTime());
        } finally {
            guard.unlock();
        }
    }

    /**
     * Waits until {@code untilNanos} or until the phase changes, whichever comes first.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    void awaitChange(Phase from, long untilNanos) throws InterruptedException {
        guard.lock();
        try {
            while (rules.phase() == from) {
                long left = untilNanos - clock.nanoTime();
                if (left <= 0) {
                    return;
                }
                phaseChanged.awaitNanos(left);
            }
        } finally {
            guard.unlock();
        }
    }

    /**
     * The primary answered an acquisition (granted, or found the lock taken) that started at {@code
     * startNanos}; see {@link FailoverRules#primaryAnswered}.
     */
    void primaryAnswered(long startNanos, boolean granted) {
        guard.lock();
        try {
            rules.primaryAnswered(startNanos, granted);
        } finally {
            guard.unlock();
        }
    }

    /**
     * The primary could not answer an acquisition of {@code lockName}: the fallback takes over, at
     * once or after the primary's wait-out.
     */
    void primaryFailed(String lockName, LockUnavailableException cause) {
        Duration waitOut = rules.takeover() == FallbackTakeover.WAIT_OUT ? primaryWaitOut() : Duration.ZERO;
        Instant downAt;
        guard.lock();
        try {
            downAt = Instant.now();
            if (!rules.primaryFailed(clock.nanoTime(), downAt, saturated(waitOut), cause)) {
                return;
            }
            fallbackLeases.allowRenewal();
            phaseChanged.signalAll();
        } finally {
            guard.unlock();
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
        probe.askUntilAnswered(() -> phase() == Phase.DOWN, this::primaryAnswersAgain);
    }

    /**
     * The probe heard the primary, having asked it at {@code askedAtNanos}: the fallback's leases
     * stop renewing, and acquisitions return to the primary at once or after the fallback's
     * wait-out.
     */
    void primaryAnswersAgain(long askedAtNanos) {
        Duration waitOut = fallbackWaitOut();
        String outcome;
        guard.lock();
        try {
            if (rules.phase() != Phase.DOWN) {
                return;
            }
            Instant backAt = Instant.now();
            FailoverRules.Return taken =
                    rules.primaryAnswersAgain(clock.nanoTime(), backAt, askedAtNanos, saturated(waitOut));
            fallbackLeases.stopAll("the primary backend " + primary.name() + " answers again");
            outcome = switch (taken) {
                case NOBODY_TOOK_OVER -> ", before any fallback could take over; acquisitions return to it at once";
                case IMMEDIATE ->
                    "; acquisitions return to it at once (" + LockConfig.FALLBACK_TAKEOVER
                            + "=immediate), the fallback's leases run out without renewal";
                default ->
                    "; the fallback's leases stop renewing and " + primary.name() + " grants from "
                            + ms(backAt.plusNanos(rules.fallbackWaitNanos()))
                            + ", once none of them can still be valid ("
                            + DurationFormat.format(Duration.ofNanos(rules.fallbackWaitNanos())) + ")";
            };
            phaseChanged.signalAll();
        } finally {
            guard.unlock();
        }
        log.info("Backend {} answers the fallback probe again{}", primary.name(), outcome);
    }

    /**
     * Why an acquisition of {@code lockName} with {@code wait} may not be granted now: the exception
     * for a {@code route} that waits beyond the caller's wait.
     */
    LockUnavailableException notYet(String lockName, Route route, Duration wait) {
        guard.lock();
        try {
            return notYetLocked(lockName, route, wait);
        } finally {
            guard.unlock();
        }
    }

    private LockUnavailableException notYetLocked(String lockName, Route route, Duration wait) {
        String opt = " " + LockConfig.FALLBACK_TAKEOVER + "=immediate grants at once instead, with two holders"
                + " overlapping (only fenced effects are safe then).";
        String waited = "; the wait of " + DurationFormat.format(wait) + " ends before that.";
        if (route.phase() == Phase.DOWN) {
            Instant downAt = rules.downAt();
            return new LockUnavailableException(
                    lockName,
                    "Lock '" + lockName + "' unavailable: backend " + primary.name() + " cannot answer since "
                            + ms(downAt) + " (as this client saw it) and fallback " + fallback.name()
                            + " grants from " + ms(downAt.plusNanos(rules.takeoverAtNanos() - rules.downAtNanos()))
                            + ", once no lease " + primary.name() + " may have granted can still be valid ("
                            + DurationFormat.format(Duration.ofNanos(rules.primaryWaitNanos())) + ")" + waited + opt,
                    rules.failure());
        }
        Instant backAt = rules.backAt();
        return new LockUnavailableException(
                lockName,
                "Lock '" + lockName + "' unavailable: backend " + primary.name() + " answers again since " + ms(backAt)
                        + " but grants from " + ms(backAt.plusNanos(rules.switchBackAtNanos() - rules.backAtNanos()))
                        + ", once no lease of fallback " + fallback.name() + " can still be valid (they stopped"
                        + " renewing; " + DurationFormat.format(Duration.ofNanos(rules.fallbackWaitNanos()))
                        + " with one probe interval)" + waited + opt,
                null);
    }

    /** The current phase, for tests and {@code toString}. */
    Phase phase() {
        guard.lock();
        try {
            return rules.phase();
        } finally {
            guard.unlock();
        }
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
        probe.close();
    }
}
