package dev.fencedlock.spi;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.LockEventListener.AcquireOutcome;
import dev.fencedlock.LockTimeoutException;
import dev.fencedlock.LockUnavailableException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link FencedLock} a {@link DefaultLockClient} hands out: the backend's lock, with every
 * acquisition reported to the client's {@link LockEventListener} and, when a fallback is
 * configured, routed by the client's {@link Failover}.
 *
 * <p>With a fallback, an acquisition that asks the primary makes one zero-wait attempt first: a
 * primary that cannot answer says so at once (instead of after the whole wait, as Redlock does
 * while it keeps retrying), or is given up when the attempt has not returned after what is left of
 * the wait (at least {@link PrimaryProbe#PRIMARY_ATTEMPT_FLOOR}); a lease it grants after that is
 * released. A primary that answers "taken" gets the rest of the wait itself. When the primary
 * cannot answer, the {@link Failover} decides: the fallback gets the rest of the wait, or the
 * acquisition waits within its wait for the fallback's takeover instant, or it throws {@link
 * LockUnavailableException} saying when the fallback takes over. So every acquisition returns or
 * throws within its wait plus one per-attempt timeout (the backend's own, or the floor).
 * Thread-safe.
 */
final class ClientLock implements FencedLock {
    private static final Logger log = LoggerFactory.getLogger(ClientLock.class);

    private final String name;
    private final FencedLock primary;
    private final String primaryName;
    private final Failover failover;
    private final FencedLock fallback;
    private final LockEventListener listener;
    private final MonotonicClock clock;

    /** @param failover null when no fallback is configured */
    ClientLock(String name, Backend primary, Failover failover, LockEventListener listener, MonotonicClock clock) {
        this.name = name;
        this.primary = primary.provider().lock(name);
        this.primaryName = primary.name();
        this.failover = failover;
        this.fallback = failover == null ? null : failover.fallback().provider().lock(name);
        this.listener = listener;
        this.clock = clock;
    }

    /** One of the four acquire methods: a lease time (null for auto-renewing) and whether a timeout throws. */
    private record Mode(Duration leaseTime, boolean throwOnTimeout) {
        Optional<Lease> call(FencedLock lock, Duration wait) throws InterruptedException {
            if (throwOnTimeout) {
                return Optional.of(leaseTime == null ? lock.acquire(wait) : lock.acquire(wait, leaseTime));
            }
            return leaseTime == null ? lock.tryAcquire(wait) : lock.tryAcquire(wait, leaseTime);
        }

        Optional<Lease> once(FencedLock lock) throws InterruptedException {
            return leaseTime == null ? lock.tryAcquire(Duration.ZERO) : lock.tryAcquire(Duration.ZERO, leaseTime);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Lease acquire(Duration wait) throws InterruptedException {
        return run(wait, new Mode(null, true)).orElseThrow();
    }

    @Override
    public Lease acquire(Duration wait, Duration leaseTime) throws InterruptedException {
        return run(wait, new Mode(leaseTime, true)).orElseThrow();
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait) throws InterruptedException {
        return run(wait, new Mode(null, false));
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait, Duration leaseTime) throws InterruptedException {
        return run(wait, new Mode(leaseTime, false));
    }

    private Optional<Lease> run(Duration wait, Mode mode) throws InterruptedException {
        long start = clock.nanoTime();
        String[] asked = {primaryName};
        AcquireOutcome outcome = AcquireOutcome.FAILED;
        try {
            Optional<Lease> lease =
                    failover == null ? mode.call(primary, wait) : withFallback(wait, mode, start, asked);
            outcome = lease.isPresent() ? AcquireOutcome.ACQUIRED : AcquireOutcome.NOT_ACQUIRED;
            lease.ifPresent(granted -> asked[0] = granted.backend());
            return lease;
        } catch (LockTimeoutException e) {
            outcome = AcquireOutcome.TIMEOUT;
            throw e;
        } catch (LockUnavailableException e) {
            outcome = AcquireOutcome.UNAVAILABLE;
            throw e;
        } catch (InterruptedException e) {
            outcome = AcquireOutcome.INTERRUPTED;
            throw e;
        } finally {
            report(asked[0], outcome, Duration.ofNanos(clock.nanoTime() - start));
        }
    }

    /**
     * The acquisition of a client with a fallback: asks the backend {@link Failover#route} names
     * until one answers, waits for a takeover or switch-back instant that falls within the wait,
     * and throws {@link Failover#notYet} for one that does not.
     */
    private Optional<Lease> withFallback(Duration wait, Mode mode, long start, String[] asked)
            throws InterruptedException {
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException(
                    "wait must be zero or positive, got " + (wait == null ? "null" : DurationFormat.format(wait)));
        }
        long deadline = start + Math.min(wait.toNanos(), DurationFormat.MAX.toNanos());
        LockUnavailableException primaryFailure = null;
        while (true) {
            FailoverRules.Route route = failover.route(name);
            if (route.toPrimary()) {
                asked[0] = primaryName;
                if (primaryFailure != null && clock.nanoTime() - deadline >= 0) {
                    throw primaryFailure;
                }
                try {
                    return askPrimary(mode, wait.isZero(), deadline, primaryFailure == null);
                } catch (LockUnavailableException e) {
                    primaryFailure = e;
                    failover.primaryFailed(name, e);
                }
            } else if (route.toFallback()) {
                asked[0] = failover.fallback().name();
                if (mode.leaseTime() != null) {
                    failover.noteFixedLease(false, mode.leaseTime());
                }
                Optional<Lease> lease = mode.call(fallback, remaining(deadline));
                if (lease.isEmpty() || failover.fallbackMayGrant()) {
                    return lease;
                }
                lease.get().close(); // granted as the client turned back to the primary: never handed out
            } else if (route.untilNanos() - deadline > 0) {
                throw failover.notYet(name, route, wait);
            } else {
                failover.awaitChange(route.phase(), route.untilNanos());
            }
        }
    }

    /**
     * Asks the primary: one zero-wait attempt, then, if the lock was taken, the rest of the wait.
     * Each runs on another thread ({@link BoundedAttempt}) and is given up, as "cannot answer",
     * when it has not returned in time: the first after what is left of the wait (at least {@link
     * PrimaryProbe#PRIMARY_ATTEMPT_FLOOR} on the first ask of an acquisition, so that a healthy primary
     * is not given up for a short wait), the rest of the wait after the deadline plus that floor.
     */
    private Optional<Lease> askPrimary(Mode mode, boolean zeroWait, long deadline, boolean firstAsk)
            throws InterruptedException {
        if (mode.leaseTime() != null) {
            failover.noteFixedLease(true, mode.leaseTime());
        }
        long floor = PrimaryProbe.PRIMARY_ATTEMPT_FLOOR.toNanos();
        long attemptStart = clock.nanoTime();
        long firstBound = firstAsk ? Math.max(deadline - attemptStart, floor) : deadline - attemptStart;
        try {
            Optional<Lease> lease = bounded(
                    () -> zeroWait ? mode.call(primary, Duration.ZERO) : mode.once(primary), attemptStart, firstBound);
            if (lease.isEmpty() && !zeroWait) {
                long rest = deadline - clock.nanoTime() + floor;
                lease = bounded(() -> mode.call(primary, remaining(deadline)), attemptStart, rest);
            }
            failover.primaryAnswered(attemptStart, lease.isPresent());
            return lease;
        } catch (LockTimeoutException e) {
            failover.primaryAnswered(attemptStart, false);
            throw e;
        }
    }

    private Optional<Lease> bounded(BoundedAttempt.Acquisition acquisition, long attemptStart, long boundNanos)
            throws InterruptedException {
        try {
            return BoundedAttempt.run(failover.attempts(), acquisition, boundNanos);
        } catch (TimeoutException e) {
            Duration waited = Duration.ofNanos(clock.nanoTime() - attemptStart);
            throw new LockUnavailableException(
                    name,
                    "Lock '" + name + "' unavailable: backend " + primaryName + " gave no answer within "
                            + DurationFormat.format(waited) + " (what was left of the wait, at least "
                            + DurationFormat.format(PrimaryProbe.PRIMARY_ATTEMPT_FLOOR) + "); the attempt was given up"
                            + " and anything it grants later is released",
                    null);
        }
    }

    private Duration remaining(long deadline) {
        long left = deadline - clock.nanoTime();
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }

    private void report(String backend, AcquireOutcome outcome, Duration elapsed) {
        try {
            listener.acquireFinished(name, backend, outcome, elapsed);
        } catch (RuntimeException e) {
            log.warn("A LockEventListener threw on acquireFinished; ignored", e);
        }
    }

    @Override
    public String toString() {
        return "FencedLock{name='" + name + "', backend=" + primaryName
                + (failover == null ? "" : ", fallback=" + failover.fallback().name()) + "}";
    }
}
