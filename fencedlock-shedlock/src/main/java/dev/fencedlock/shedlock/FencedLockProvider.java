package dev.fencedlock.shedlock;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.internal.binding.ThreadLease;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link ExtensibleLockProvider} over a fencedlock {@link LockClient}, so over any of its
 * backends (redlock, zookeeper, jdbc, local, with a fallback): every task run gets a {@link Lease}
 * and its fencing token.
 *
 * <p>ShedLock's semantics:
 *
 * <ul>
 *   <li>{@link #lock} never waits: it makes one attempt and returns empty when another holder has
 *       the lock (or had it and its {@code lockAtLeastFor} has not passed), or when the backend
 *       cannot answer: the run is skipped, as ShedLock skips a run whose lock it cannot have. Not
 *       reentrant: a second {@code lock} of a held name returns empty, on any thread.
 *   <li>A backend that cannot answer is logged once at WARN when a run is first skipped for it and
 *       once at INFO when it answers again, per provider, however many runs are skipped in between;
 *       under Spring Boot with Micrometer the skipped runs are counted in {@code
 *       fencedlock.shedlock.skipped} ({@code reason=unavailable}).
 *   <li>The lease is fixed (never renewed) and ends at {@code lockAtMostUntil}, the creation time
 *       plus {@code lockAtMostFor}: it is asked for with the backend's clock-drift allowance on top
 *       ({@link Lease#leaseTimeFor}), so that the holder believes it valid, and keeps the lock,
 *       until that instant and no earlier. A task still running then loses the lock; its fenced
 *       writes are refused from then on. A {@code lockAtMostFor} below the shortest lease the
 *       backend can grant is refused with an {@link IllegalArgumentException}, as ShedLock refuses
 *       a bad {@link LockConfiguration}: an empty result means only that another holder has the
 *       lock.
 *   <li>{@link SimpleLock#unlock()} before {@code lockAtLeastUntil} keeps the lock until then, and
 *       releases it at that time; after it, releases at once. With {@code lockAtLeastFor} equal to
 *       {@code lockAtMostFor} no other instance gets the lock before {@code lockAtLeastUntil}. A lock whose lease has run out and
 *       was taken by another holder is never touched by the old holder's unlock.
 *   <li>{@link SimpleLock#extend} gives a new lock with the same lease and token, valid for the new
 *       {@code lockAtMostFor} from now, and ends the old lock object (ShedLock's {@code
 *       IllegalStateException} on using it again). A lock whose lease ran out cannot be extended
 *       (empty): it is never brought back. ShedLock's {@code KeepAliveLockProvider} works on top.
 * </ul>
 *
 * <p>The lock ShedLock gets back is a {@link FencedSimpleLock}, whose {@link FencedSimpleLock#lease()
 * lease} carries the token for fenced writes. With the fencedlock Spring Boot starter on the class
 * path, {@code lock} also makes the lease the current thread's lease (as a {@code @Locked} call does)
 * until {@code unlock}: a {@code @SchedulerLock} job's transactions are then fenced with no change
 * to the job. ShedLock locks and unlocks on the thread that runs the task.
 *
 * <p>Clock assumption: ShedLock states {@code lockAtMostUntil} and {@code lockAtLeastUntil} as
 * instants of {@link ClockProvider}'s clock; the provider turns them into durations from now on the
 * same clock and from then on counts with the lease's own monotonic validity, so a wall-clock jump
 * after {@code lock} does not lengthen or shorten a lease. Thread-safe.
 */
public final class FencedLockProvider implements ExtensibleLockProvider {
    private static final Logger LOG = LoggerFactory.getLogger(FencedLockProvider.class);
    private final LockClient client;
    private final BackendAvailability availability;
    /** A lease this provider was granted, whose {@link Lease#leaseTimeFor} sizes the next request. */
    private volatile Lease sample;

    /**
     * @param client the client whose locks the tasks take; it stays the caller's to close
     * @throws NullPointerException if {@code client} is null
     */
    public FencedLockProvider(LockClient client) {
        this(client, SkippedRuns.NONE);
    }

    /** As {@link #FencedLockProvider(LockClient)}, telling {@code skipped} of each run skipped as unavailable. */
    FencedLockProvider(LockClient client, SkippedRuns skipped) {
        this.client = Objects.requireNonNull(client, "client");
        this.availability = new BackendAvailability(client.config().backend(), skipped);
    }

    /**
     * Takes the lock named by {@code configuration} if it is free, in one attempt (two round trips
     * on a backend with a drift allowance the first time: the lease is then extended to cover
     * {@code lockAtMostUntil}; later requests are sized from it).
     *
     * @return the lock, or empty if another holder has it or the backend could not answer (a
     *     {@link LockUnavailableException}, logged only when the backend's state changes)
     * @throws IllegalArgumentException if {@code lockAtMostUntil} has already passed, or {@code
     *     lockAtMostFor} is shorter than the smallest lease the backend grants (the message names
     *     both)
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Duration leaseTime = untilNow(configuration.getLockAtMostUntil());
        if (leaseTime.isZero()) {
            throw new IllegalArgumentException(
                    "lockAtMostUntil of lock '" + configuration.getName() + "' has already passed: " + configuration);
        }
        Lease previous = sample;
        Duration asked = previous == null ? leaseTime : previous.leaseTimeFor(leaseTime);
        Optional<Lease> lease;
        try {
            lease = client.lock(configuration.getName()).tryAcquire(Duration.ZERO, asked);
        } catch (IllegalArgumentException e) {
            throw tooShort("lockAtMostFor", configuration.getLockAtMostFor(), configuration, e);
        } catch (LockUnavailableException e) {
            availability.skipped(configuration.getName(), e);
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        availability.answered();
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        Lease granted = lease.get();
        sample = granted;
        Duration validity = untilNow(configuration.getLockAtMostUntil());
        Duration needed = granted.leaseTimeFor(validity);
        if (needed.compareTo(asked) > 0 && !extendQuietly(granted, needed)) {
            granted.close(); // lost at once: another holder has it
            return Optional.empty();
        }
        return Optional.of(new FencedSimpleLock(configuration, granted, ThreadLease.bind(granted)));
    }

    /**
     * Extends {@code lease} to {@code leaseTime}; false if it was lost. A backend that cannot answer
     * leaves the lease as it was (valid until a little before the time asked, by the drift
     * allowance), which is logged.
     */
    static boolean extendQuietly(Lease lease, Duration leaseTime) {
        try {
            lease.extend(leaseTime);
            return true;
        } catch (LeaseLostException e) {
            return false;
        } catch (LockUnavailableException e) {
            LOG.warn(
                    "Could not extend the lease of lock '{}' by the backend's drift allowance; it ends {} early",
                    lease.lockName(),
                    format(leaseTime.minus(lease.remaining())),
                    e);
            return true;
        }
    }

    /** {@code 250ms}, or ISO-8601 for what milliseconds do not show exactly. */
    static String format(Duration duration) {
        return Duration.ofMillis(duration.toMillis()).equals(duration)
                ? duration.toMillis() + "ms"
                : duration.toString();
    }

    /** The refusal of a ShedLock duration that no lease of the backend could cover. */
    static IllegalArgumentException tooShort(
            String what, Duration value, LockConfiguration configuration, IllegalArgumentException cause) {
        return new IllegalArgumentException(
                what + " " + format(value) + " of lock '" + configuration.getName()
                        + "' cannot be held on this backend (" + cause.getMessage() + "); " + configuration,
                cause);
    }

    /** The time from now to {@code instant} on ShedLock's clock, at least zero. */
    static Duration untilNow(Instant instant) {
        Duration left = Duration.between(ClockProvider.now(), instant);
        return left.isNegative() ? Duration.ZERO : left;
    }

    @Override
    public String toString() {
        return "FencedLockProvider[" + client.config().backend() + "]";
    }
}
