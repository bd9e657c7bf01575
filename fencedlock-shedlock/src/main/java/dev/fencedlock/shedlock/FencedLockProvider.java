package dev.fencedlock.shedlock;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.shedlock.internal.DelayedRelease;
import dev.fencedlock.shedlock.internal.ThreadLease;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@link ExtensibleLockProvider} over a fencedlock {@link LockClient}, so over any of its
 * backends (redlock, zookeeper, jdbc, local, with a fallback): every task run gets a {@link Lease}
 * and its fencing token.
 *
 * <p>ShedLock's semantics:
 *
 * <ul>
 *   <li>{@link #lock} never waits: it makes one attempt and returns empty when another holder has
 *       the lock (or had it and its {@code lockAtLeastFor} has not passed). Not reentrant: a second
 *       {@code lock} of a held name returns empty, on any thread.
 *   <li>The lease is fixed (never renewed) and ends at {@code lockAtMostUntil}, the creation time
 *       plus {@code lockAtMostFor}. A task still running then loses the lock; its fenced writes
 *       are refused from then on.
 *   <li>{@link SimpleLock#unlock()} before {@code lockAtLeastUntil} keeps the lock until then, and
 *       releases it at that time; after it, releases at once. A lock whose lease has run out and
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
    private final LockClient client;

    /**
     * @param client the client whose locks the tasks take; it stays the caller's to close
     * @throws NullPointerException if {@code client} is null
     */
    public FencedLockProvider(LockClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * Takes the lock named by {@code configuration} if it is free, in one attempt.
     *
     * @return the lock, or empty if another holder has it
     * @throws IllegalArgumentException if {@code lockAtMostUntil} has already passed
     * @throws dev.fencedlock.LockUnavailableException if the backend could not answer; ShedLock then
     *     skips the run, as with any provider failure
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Duration leaseTime = untilNow(configuration.getLockAtMostUntil());
        if (leaseTime.isZero()) {
            throw new IllegalArgumentException(
                    "lockAtMostUntil of lock '" + configuration.getName() + "' has already passed: " + configuration);
        }
        Optional<Lease> lease;
        try {
            lease = client.lock(configuration.getName()).tryAcquire(Duration.ZERO, leaseTime);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        return lease.map(granted -> new FencedSimpleLock(configuration, granted, ThreadLease.bind(granted)));
    }

    /** The time from now to {@code instant} on ShedLock's clock, at least zero. */
    static Duration untilNow(Instant instant) {
        Duration left = Duration.between(ClockProvider.now(), instant);
        return left.isNegative() ? Duration.ZERO : left;
    }

    static DelayedRelease delayedRelease() {
        return DelayedRelease.shared();
    }

    @Override
    public String toString() {
        return "FencedLockProvider[" + client.config().backend() + "]";
    }
}
