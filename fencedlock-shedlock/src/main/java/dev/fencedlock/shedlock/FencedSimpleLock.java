package dev.fencedlock.shedlock;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.internal.binding.ThreadLease;
import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A task's lock as {@link FencedLockProvider} hands it to ShedLock, with the {@link Lease} behind it:
 * write {@link #token()} with the task's data, or let the fencedlock starter fence the task's
 * transactions. Unlocking or extending it ends this object (ShedLock's {@code IllegalStateException}
 * on a second use); the lease and its token stay readable. Thread-safe.
 */
public final class FencedSimpleLock extends AbstractSimpleLock {
    private final Lease lease;
    private final ThreadLease binding;

    FencedSimpleLock(LockConfiguration configuration, Lease lease, ThreadLease binding) {
        super(configuration);
        this.lease = lease;
        this.binding = binding;
    }

    /** The lease behind this lock; after {@code unlock} it may still be held until {@code lockAtLeastUntil}. */
    public Lease lease() {
        return lease;
    }

    /** The fencing token of this run's lease. */
    public long token() {
        return lease.token();
    }

    /**
     * Ends the task's hold: at once, or at {@code lockAtLeastUntil} if that is still ahead (the lease
     * is shortened to it, drift allowance included, so that the holder keeps the lock until then and
     * the lock frees itself soon after even if this process stops first).
     */
    @Override
    protected void doUnlock() {
        binding.close();
        Duration keep = FencedLockProvider.untilNow(lockConfiguration.getLockAtLeastUntil());
        if (keep.isZero() || !lease.isValid()) {
            lease.close();
            return;
        }
        Duration leaseTime = lease.leaseTimeFor(keep);
        try {
            if (!FencedLockProvider.extendQuietly(lease, leaseTime)) {
                lease.close();
                return;
            }
        } catch (IllegalArgumentException e) {
            // shorter than the backend's smallest lease: the lease as it is covers it, or nearly
        }
        DelayedRelease.shared().closeAfter(lease, keep);
    }

    /**
     * The same lease, valid for the new {@code lockAtMostFor} from now; empty (and the lease let go)
     * if it has run out or was lost, so an expired lock is never brought back.
     */
    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration extended) {
        Duration leaseTime = FencedLockProvider.untilNow(extended.getLockAtMostUntil());
        if (!lease.isValid() || leaseTime.isZero()) {
            giveUp();
            return Optional.empty();
        }
        try {
            lease.extend(lease.leaseTimeFor(leaseTime));
        } catch (LeaseLostException e) {
            giveUp();
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            throw FencedLockProvider.tooShort("lockAtMostFor", extended.getLockAtMostFor(), extended, e);
        }
        return Optional.of(new FencedSimpleLock(extended, lease, binding));
    }

    private void giveUp() {
        binding.close();
        lease.close();
    }

    @Override
    public String toString() {
        return "FencedSimpleLock[" + lockConfiguration.getName() + ", token " + lease.token() + "]";
    }
}
