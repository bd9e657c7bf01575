package dev.fencedlock.faults.workload;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import java.time.Duration;
import java.util.Optional;

/** How a client asks for a lock: which of the {@link FencedLock} calls, with which durations. */
@FunctionalInterface
public interface Acquisition {
    /**
     * @return the lease, or empty if the lock stayed taken
     * @throws dev.fencedlock.LockUnavailableException if the backend could not answer
     */
    Optional<Lease> acquire(FencedLock lock) throws InterruptedException;

    /** An auto-renewing lease, waiting up to {@code wait}. */
    static Acquisition renewing(Duration wait) {
        return lock -> lock.tryAcquire(wait);
    }

    /** A fixed lease of {@code leaseTime}, waiting up to {@code wait}. */
    static Acquisition fixed(Duration wait, Duration leaseTime) {
        return lock -> lock.tryAcquire(wait, leaseTime);
    }
}
