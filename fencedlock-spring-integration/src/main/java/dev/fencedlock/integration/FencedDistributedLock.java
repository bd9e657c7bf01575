package dev.fencedlock.integration;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.internal.binding.ThreadLease;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * One key's lock of a {@link FencedLockRegistry}: a local {@link ReentrantLock} in front of a
 * fencedlock lease. The first acquisition by a thread takes a fixed lease of the TTL; a re-entrant
 * acquisition restarts it (so {@code LockRegistryLeaderInitiator}'s heartbeat keeps its leader's
 * lock). The last {@code unlock} releases the lease.
 *
 * <p>A hold whose lease has run out (or was lost) stays broken until the thread lets it go: a
 * re-entrant {@code lock}, {@code lockInterruptibly} or {@code tryLock} throws {@link
 * ConcurrentModificationException} (the thread's holds stay as they were), and the last {@code
 * unlock} throws {@link ConcurrentModificationException} after releasing the local lock. A
 * re-entry never takes a new lease under the old hold: another instance may have held the lock
 * meanwhile, and a holder that carried on (a leader through its heartbeat) would not know it had
 * been displaced. Spring Integration's Redis and JDBC registries re-take a free lock silently
 * there; this one keeps the promise of its {@code unlock} instead. {@code
 * LockRegistryLeaderInitiator} handles the exception of its heartbeat's re-entry as lost
 * leadership: it revokes, unlocks (which releases the broken hold) and tries again, so the
 * instance can lead again later, with a new token. After the throwing {@code unlock} the lock can
 * be taken afresh.
 *
 * <p>Only the owning thread may unlock or renew ({@link IllegalStateException} otherwise). An
 * {@code unlock} never touches a later holder's lock. Backend failures reach the caller as
 * fencedlock's {@link dev.fencedlock.LockUnavailableException}, with nothing more held. Thread-safe.
 */
public final class FencedDistributedLock implements DistributedLock {
    private static final Duration POLL = Duration.ofMillis(100);

    private final FencedLock lock;
    private final Duration ttl;
    private final ReentrantLock local = new ReentrantLock();
    private volatile Lease lease;
    private ThreadLease binding = ThreadLease.NONE;
    private volatile long lastUsed = System.currentTimeMillis();

    FencedDistributedLock(FencedLock lock, Duration ttl) {
        this.lock = lock;
        this.ttl = ttl;
    }

    /** The lease of the current hold, if the lock is held; its token fences the holder's writes. */
    public Optional<Lease> lease() {
        return Optional.ofNullable(lease);
    }

    /** The key, which is the fencedlock lock name. */
    public String key() {
        return lock.name();
    }

    @Override
    public void lock() {
        lock(ttl);
    }

    @Override
    public void lock(Duration ttl) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (tryLock(POLL, ttl)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        while (!tryLock(POLL, ttl)) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    @Override
    public boolean tryLock() {
        try {
            return tryLock(Duration.ZERO, ttl);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(time)), ttl);
    }

    /**
     * Waits up to {@code waitTime} for the lock, held for {@code ttl} once taken.
     *
     * @return whether the calling thread now holds it
     * @throws ConcurrentModificationException on a re-entry into a hold whose lease has run out or
     *     was lost (see the class description)
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        requirePositive(ttl, "ttl");
        long deadline = System.nanoTime() + Math.max(0, waitTime.toNanos());
        if (!local.tryLock(Math.max(0, waitTime.toNanos()), TimeUnit.NANOSECONDS)) {
            return false;
        }
        boolean held = false;
        try {
            if (local.getHoldCount() == 1) {
                held = take(deadline, ttl);
            } else {
                held = restart(ttl);
                if (!held) {
                    throw brokenHold("before this re-entry");
                }
            }
            return held;
        } finally {
            lastUsed = System.currentTimeMillis();
            if (!held) {
                local.unlock();
            }
        }
    }

    /** A re-entry: restarts the current lease's TTL; false if the lease is gone. */
    private boolean restart(Duration ttl) {
        Lease current = lease;
        if (current == null || !current.isValid()) {
            return false;
        }
        try {
            current.extend(ttl);
            return true;
        } catch (LeaseLostException e) {
            return false;
        }
    }

    private ConcurrentModificationException brokenHold(String when) {
        return new ConcurrentModificationException("The lease of lock " + key() + " ran out or was lost " + when
                + ": another holder may have had the lock since; unlock it fully, then lock it again");
    }

    /** Takes a lease for a first hold; false if the lock stayed taken until {@code deadline}. */
    private boolean take(long deadline, Duration ttl) throws InterruptedException {
        Duration wait = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        Optional<Lease> granted = lock.tryAcquire(wait, ttl);
        if (granted.isEmpty()) {
            return false;
        }
        endHold();
        lease = granted.get();
        binding = ThreadLease.bind(granted.get());
        return true;
    }

    /**
     * Releases one hold of the calling thread; the last one releases the lease.
     *
     * @throws IllegalStateException if the calling thread does not hold the lock
     * @throws ConcurrentModificationException on the last hold, if the lease had run out or was
     *     lost; the local lock is released all the same
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalStateException("The lock " + key() + " is not held by the current thread "
                    + Thread.currentThread().getName());
        }
        try {
            if (local.getHoldCount() == 1) {
                Lease released = lease;
                boolean lost = released == null || !released.isValid();
                endHold();
                if (lost) {
                    throw new ConcurrentModificationException("The lease of lock " + key()
                            + " ran out or was lost before unlock: another holder may have had the lock since;"
                            + " nothing of its hold was released");
                }
            }
        } finally {
            lastUsed = System.currentTimeMillis();
            local.unlock();
        }
    }

    /**
     * Restarts the TTL of the calling thread's hold.
     *
     * @throws IllegalStateException if the calling thread does not hold the lock
     * @throws ConcurrentModificationException if the lease ran out or was lost
     */
    void renew(Duration ttl) {
        requirePositive(ttl, "ttl");
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalStateException("The lock " + key() + " is not held by the current thread "
                    + Thread.currentThread().getName() + ": only its owner may renew it");
        }
        if (!restart(ttl)) {
            throw brokenHold("before this renewal");
        }
    }

    private void endHold() {
        Lease ended = lease;
        lease = null;
        binding.close();
        binding = ThreadLease.NONE;
        if (ended != null) {
            ended.close();
        }
    }

    /** Whether nobody holds the lock and it was last used before {@code cutoffMillis}. */
    boolean isUnusedSince(long cutoffMillis) {
        return !local.isLocked() && lastUsed < cutoffMillis;
    }

    /** Not supported, as by Spring Integration's distributed registries. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Conditions are not supported by distributed locks");
    }

    static Duration requirePositive(Duration duration, String what) {
        if (duration == null || duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException(what + " must be positive, got " + duration);
        }
        return duration;
    }

    @Override
    public String toString() {
        Lease current = lease;
        return "FencedDistributedLock[" + key() + (current == null ? ", free here" : ", token " + current.token())
                + "]";
    }
}
