package dev.fencedlock.internal;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.LockEventListener.AcquireOutcome;
import dev.fencedlock.LockTimeoutException;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.internal.config.DurationFormat;
import dev.fencedlock.spi.MonotonicClock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link FencedLock} a {@link DefaultLockClient} hands out: the backend's lock, with every
 * acquisition reported to the client's {@link LockEventListener} and, when a fallback is
 * configured, routed by the client's {@link Failover}.
 *
 * <p>With a fallback, an acquisition that asks the primary makes one zero-wait attempt first: a
 * primary that cannot answer says so at once (instead of after the whole wait, as Redlock does
 * while it keeps retrying), and the fallback gets the rest of the wait. A primary that answers
 * "taken" gets the rest of the wait itself. Thread-safe.
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

    private Optional<Lease> withFallback(Duration wait, Mode mode, long start, String[] asked)
            throws InterruptedException {
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException(
                    "wait must be zero or positive, got " + (wait == null ? "null" : DurationFormat.format(wait)));
        }
        if (failover.usePrimary(name)) {
            try {
                if (wait.isZero()) {
                    return mode.call(primary, Duration.ZERO);
                }
                Optional<Lease> lease = mode.once(primary);
                return lease.isPresent() ? lease : mode.call(primary, remaining(wait, start));
            } catch (LockUnavailableException e) {
                failover.primaryFailed(name, e);
            }
        }
        asked[0] = failover.fallback().name();
        return mode.call(fallback, remaining(wait, start));
    }

    private Duration remaining(Duration wait, long start) {
        Duration left = wait.minusNanos(clock.nanoTime() - start);
        return left.isNegative() ? Duration.ZERO : left;
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
