package dev.fencedlock.spi;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockException;
import dev.fencedlock.LockTimeoutException;
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
     *     (a grant that had no validity left when it was made is not "taken": record it with {@link
     *     LeaseRequest#recordGrantWithoutValidity})
     * @throws dev.fencedlock.LockUnavailableException if the backend could not answer
     * @throws InterruptedException if the thread was interrupted while waiting
     */
    protected abstract Optional<? extends AbstractLease> doAcquire(LeaseRequest request) throws InterruptedException;

    /**
     * How much shorter than {@code leaseTime} this backend believes a grant or an extension of
     * {@code leaseTime} valid, even when the backend answers at once: its clock-drift allowance
     * (and any rounding of the lease time). The validity of a grant is the lease time less this,
     * less the time the grant took, counted from the attempt's start. Must grow no faster than half
     * the lease time grows. The default, zero, suits a backend whose leases are valid for their
     * whole lease time.
     */
    protected Duration validityAllowance(Duration leaseTime) {
        return Duration.ZERO;
    }

    /**
     * The shortest lease time to ask for so that a grant or an extension made at once is valid for
     * at least {@code validity}: {@code validity} plus the {@linkplain #validityAllowance allowance}
     * for the result, rounded up to whole milliseconds when there is an allowance.
     */
    final Duration leaseTimeFor(Duration validity) {
        Duration leaseTime = validity;
        for (int i = 0; i < 64; i++) {
            Duration needed = validity.plus(validityAllowance(leaseTime));
            if (needed.compareTo(leaseTime) <= 0) {
                return leaseTime;
            }
            leaseTime = roundUpToMillis(needed);
        }
        return leaseTime;
    }

    private static Duration roundUpToMillis(Duration duration) {
        Duration millis = Duration.ofMillis(duration.toMillis());
        return millis.equals(duration) ? millis : millis.plusMillis(1);
    }

    /**
     * The shortest fixed lease that this backend grants (whole milliseconds where it has an
     * allowance): one that an instant grant leaves valid for some time. A lease no longer than its
     * {@linkplain #validityAllowance allowance} could never be held, so {@link #acquire(Duration,
     * Duration)}, {@link #tryAcquire(Duration, Duration)} and {@link Lease#extend} refuse it with an
     * {@link IllegalArgumentException} rather than answer as if the lock were taken.
     */
    public final Duration minimumLeaseTime() {
        return leaseTimeFor(Duration.ofNanos(1));
    }

    /** Throws if {@code leaseTime} is no longer than its allowance; see {@link #minimumLeaseTime()}. */
    final void requireGrantable(Duration leaseTime) {
        if (leaseTime.compareTo(validityAllowance(leaseTime)) <= 0) {
            Duration minimum = minimumLeaseTime();
            throw new IllegalArgumentException("leaseTime " + DurationFormat.format(leaseTime) + " of lock '" + name
                    + "' is shorter than the smallest lease the " + runtime.backend() + " backend grants, "
                    + DurationFormat.format(minimum) + ": it takes "
                    + DurationFormat.format(validityAllowance(leaseTime))
                    + " off every lease's validity as its clock-drift allowance, so a shorter lease is never valid");
        }
    }

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
        return acquireOrThrow(wait, requireFixedLeaseTime(leaseTime), false);
    }

    @Override
    public final Optional<Lease> tryAcquire(Duration wait) throws InterruptedException {
        return attempt(requireWait(wait), runtime.leaseTime(), true);
    }

    @Override
    public final Optional<Lease> tryAcquire(Duration wait, Duration leaseTime) throws InterruptedException {
        return attempt(requireWait(wait), requireFixedLeaseTime(leaseTime), false);
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

    /**
     * A try: empty only when the lock stayed taken. A request whose grants ran out before they could
     * be handed out ({@link LeaseRequest#recordGrantWithoutValidity}) throws instead, since the lease
     * time, not another holder, kept the lock from the caller (an acquire's timeout says it too).
     */
    private Optional<Lease> attempt(Duration wait, Duration leaseTime, boolean autoRenew) throws InterruptedException {
        LeaseRequest request =
                new LeaseRequest(name, leaseTime, autoRenew, runtime.clock().nanoTime(), wait);
        Optional<? extends AbstractLease> lease = run(request);
        if (lease.isEmpty() && request.grantWithoutValidity().isPresent()) {
            throw new LockException("Lock '" + name + "' was won, but its lease time of "
                    + DurationFormat.format(leaseTime) + " ran out before the grant could be handed out ("
                    + request.grantWithoutValidity().get() + "); ask for a lease time well above the time a "
                    + runtime.backend() + " grant takes (no other holder kept the lock)");
        }
        return lease.map(Lease.class::cast);
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
        lease.ifPresent(granted -> granted.activate(this));
        return lease;
    }

    private static Duration requireWait(Duration wait) {
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException(
                    "wait must be zero or positive, got " + (wait == null ? "null" : DurationFormat.format(wait)));
        }
        return wait;
    }

    private Duration requireFixedLeaseTime(Duration leaseTime) {
        if (leaseTime == null || leaseTime.isZero() || leaseTime.isNegative()) {
            throw new IllegalArgumentException("leaseTime must be positive, got "
                    + (leaseTime == null ? "null" : DurationFormat.format(leaseTime)));
        }
        requireGrantable(leaseTime);
        return leaseTime;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{name='" + name + "'}";
    }
}
