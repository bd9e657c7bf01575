package dev.fencedlock.spi;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockTimeoutException;
import dev.fencedlock.internal.config.DurationFormat;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Argument checking, timing and lease activation shared by every backend's {@link FencedLock}. A
 * backend implements {@link #doAcquire}: wait until {@link LeaseRequest#deadlineNanos()} for a
 * grant and return it, or return empty.
 *
 * <p>Thread-safety: instances hold no per-call state and may be shared by any number of threads,
 * provided {@link #doAcquire} is thread-safe.
 */
public abstract class AbstractFencedLock implements FencedLock {
    private final String name;
    private final LeaseRuntime runtime;

    protected AbstractFencedLock(String name, LeaseRuntime runtime) {
        this.name = Objects.requireNonNull(name, "name");
        this.runtime = Objects.requireNonNull(runtime, "runtime");
    }

    /**
     * Waits until the request's deadline for a grant. A single attempt is still made when the wait
     * is zero. Implementations must honour interruption promptly and must not hold anything when
     * they return empty or throw.
     *
     * @return the new, not yet activated lease; empty if the lock stayed taken until the deadline
     * @throws dev.fencedlock.LockUnavailableException if the backend could not answer
     * @throws InterruptedException if the thread was interrupted while waiting
     */
    protected abstract Optional<? extends AbstractLease> doAcquire(LeaseRequest request) throws InterruptedException;

    @Override
    public final String name() {
        return name;
    }

    /** The runtime whose clock and scheduler this lock's leases use. */
    protected final LeaseRuntime runtime() {
        return runtime;
    }

    @Override
    public final Lease acquire(Duration wait) throws InterruptedException {
        return acquireOrThrow(wait, runtime.leaseTime(), true);
    }

    @Override
    public final Lease acquire(Duration wait, Duration leaseTime) throws InterruptedException {
        return acquireOrThrow(wait, requirePositiveLeaseTime(leaseTime), false);
    }

    @Override
    public final Optional<Lease> tryAcquire(Duration wait) throws InterruptedException {
        return attempt(requireWait(wait), runtime.leaseTime(), true);
    }

    @Override
    public final Optional<Lease> tryAcquire(Duration wait, Duration leaseTime) throws InterruptedException {
        return attempt(requireWait(wait), requirePositiveLeaseTime(leaseTime), false);
    }

    private Lease acquireOrThrow(Duration wait, Duration leaseTime, boolean autoRenew) throws InterruptedException {
        requireWait(wait);
        long start = runtime.clock().nanoTime();
        LeaseRequest request = new LeaseRequest(name, leaseTime, autoRenew, start, wait);
        Optional<? extends AbstractLease> lease = run(request);
        if (lease.isPresent()) {
            return lease.get();
        }
        Duration elapsed = Duration.ofNanos(runtime.clock().nanoTime() - start);
        String detail = "the lock stayed held for the whole wait of " + DurationFormat.format(wait)
                + (request.lastAttempt().isEmpty() ? "" : "; last attempt: " + request.lastAttempt());
        throw new LockTimeoutException(name, elapsed, detail);
    }

    private Optional<Lease> attempt(Duration wait, Duration leaseTime, boolean autoRenew) throws InterruptedException {
        LeaseRequest request =
                new LeaseRequest(name, leaseTime, autoRenew, runtime.clock().nanoTime(), wait);
        return run(request).map(Lease.class::cast);
    }

    private Optional<? extends AbstractLease> run(LeaseRequest request) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + name + "'");
        }
        if (runtime.isClosed()) {
            throw new IllegalStateException("The LockClient of lock '" + name + "' is closed");
        }
        Optional<? extends AbstractLease> lease = doAcquire(request);
        if (lease.isPresent() && runtime.isClosed()) {
            lease.get().close();
            throw new IllegalStateException("The LockClient of lock '" + name + "' was closed while acquiring");
        }
        lease.ifPresent(AbstractLease::activate);
        return lease;
    }

    private static Duration requireWait(Duration wait) {
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException(
                    "wait must be zero or positive, got " + (wait == null ? "null" : DurationFormat.format(wait)));
        }
        return wait;
    }

    private static Duration requirePositiveLeaseTime(Duration leaseTime) {
        if (leaseTime == null || leaseTime.isZero() || leaseTime.isNegative()) {
            throw new IllegalArgumentException("leaseTime must be positive, got "
                    + (leaseTime == null ? "null" : DurationFormat.format(leaseTime)));
        }
        return leaseTime;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{name='" + name + "'}";
    }
}
