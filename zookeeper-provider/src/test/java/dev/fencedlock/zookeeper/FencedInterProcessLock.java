package dev.fencedlock.zookeeper;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Curator's {@link InterProcessLock} over a fencedlock lock, so that Curator's own mutex tests run
 * against the {@code zookeeper} backend ({@link CuratorMutexSuiteIT}).
 *
 * <p>Semantics are fencedlock's: not reentrant (a second {@code acquire} waits, also on the same
 * thread, like Curator's {@code InterProcessSemaphoreMutex}), and {@link #release()} may be called
 * from any thread. One instance holds at most one lease.
 *
 * <p>Thread-safety: thread-safe.
 */
final class FencedInterProcessLock implements InterProcessLock {
    /** How long one wait of {@link #acquire()} lasts before it waits again: it waits for ever. */
    private static final Duration WAIT_STEP = Duration.ofHours(1);

    private final FencedLock lock;
    private final AtomicReference<Lease> held = new AtomicReference<>();

    FencedInterProcessLock(FencedLock lock) {
        this.lock = lock;
    }

    @Override
    public void acquire() throws Exception {
        while (!acquire(WAIT_STEP)) {
            // still taken: wait again
        }
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws Exception {
        return acquire(Duration.ofNanos(unit.toNanos(time)));
    }

    private boolean acquire(Duration wait) throws InterruptedException {
        Optional<Lease> lease = lock.tryAcquire(wait);
        if (lease.isEmpty()) {
            return false;
        }
        Lease earlier = held.getAndSet(lease.get());
        if (earlier != null) {
            // Only after the earlier lease was lost without being released: it holds nothing now.
            earlier.close();
        }
        return true;
    }

    /**
     * Releases the lease this instance holds.
     *
     * @throws IllegalStateException if it holds none, as Curator's mutexes do
     */
    @Override
    public void release() {
        Lease lease = held.getAndSet(null);
        if (lease == null) {
            throw new IllegalStateException("You do not own the lock: " + lock.name());
        }
        lease.close();
    }

    /** Whether this instance holds a lease that it has not released (valid or not, as in Curator). */
    @Override
    public boolean isAcquiredInThisProcess() {
        return held.get() != null;
    }
}
