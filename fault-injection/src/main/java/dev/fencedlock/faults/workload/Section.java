package dev.fencedlock.faults.workload;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.faults.db.FencedIncrement;
import dev.fencedlock.faults.db.UnfencedIncrement;
import dev.fencedlock.faults.history.CriticalSection;
import dev.fencedlock.faults.history.FencedWrite;
import dev.fencedlock.faults.history.HistoryRecorder;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * One critical section being recorded: entered when the acquire returns, left by {@link #close()},
 * which records the {@link CriticalSection} and then releases the lease. Every call that acts as the
 * holder first checks {@link Lease#isValid()} and remembers the last time it was seen valid.
 *
 * <p>Confined to one thread, except {@link #lease()}, which faults may use from any thread.
 */
public final class Section implements AutoCloseable {
    private static final AtomicLong ATTEMPTS = new AtomicLong();

    private final HistoryRecorder recorder;
    private final String client;
    private final Lease lease;
    private final long acquireStartNanos;
    private final long enterNanos;
    private final CountDownLatch lost = new CountDownLatch(1);
    private long lastValidNanos;
    private boolean closed;

    private Section(HistoryRecorder recorder, String client, Lease lease, long acquireStartNanos, long enterNanos) {
        this.recorder = recorder;
        this.client = client;
        this.lease = lease;
        this.acquireStartNanos = acquireStartNanos;
        this.enterNanos = enterNanos;
        this.lastValidNanos = enterNanos - 1;
    }

    /**
     * Acquires the lock as {@code how} says and enters the section.
     *
     * @return the section, or empty if the lock was not granted
     * @throws dev.fencedlock.LockUnavailableException if the backend could not answer
     */
    public static Optional<Section> enter(FencedLock lock, Acquisition how, String client, HistoryRecorder recorder)
            throws InterruptedException {
        long start = System.nanoTime();
        Optional<Lease> granted = how.acquire(lock);
        if (granted.isEmpty()) {
            return Optional.empty();
        }
        Section section = new Section(recorder, client, granted.get(), start, System.nanoTime());
        granted.get().onLost((lease, cause) -> section.lost.countDown());
        section.checkValid();
        return Optional.of(section);
    }

    public Lease lease() {
        return lease;
    }

    public String client() {
        return client;
    }

    /** Whether the lease is valid now; remembers when it was last seen valid. */
    public boolean checkValid() {
        long now = System.nanoTime();
        if (lease.isValid()) {
            lastValidNanos = now;
            return true;
        }
        return false;
    }

    /** Begins a fenced increment of {@code counter} under this section's lease. */
    public FencedIncrement beginFenced(EntityManagerFactory factory, String counter) {
        checkValid();
        return FencedIncrement.begin(factory, lease, counter);
    }

    /** Begins an unfenced (control) increment of {@code counter}. */
    public UnfencedIncrement beginUnfenced(DataSource dataSource, String counter) {
        checkValid();
        return UnfencedIncrement.begin(dataSource, counter);
    }

    /** A whole fenced increment of {@code counter} (read, write, commit); records its outcome. */
    public FencedWrite increment(EntityManagerFactory factory, String counter) {
        try (FencedIncrement increment = beginFenced(factory, counter)) {
            return commit(increment);
        }
    }

    /**
     * A whole fenced increment of {@code counter} with {@code bound} bound in place of this
     * section's lease (the same lease, seen through a wrapper that injects a fault); records its
     * outcome, also when {@code begin()} refused it.
     *
     * @throws IllegalArgumentException if {@code bound} carries another lock or token
     */
    public FencedWrite increment(EntityManagerFactory factory, String counter, Lease bound) {
        if (!bound.lockName().equals(lease.lockName()) || bound.token() != lease.token()) {
            throw new IllegalArgumentException("bound must stand for this section's lease (lock '" + lease.lockName()
                    + "', token " + lease.token() + "), got lock '" + bound.lockName() + "', token " + bound.token());
        }
        checkValid();
        FencedWrite write = FencedIncrement.run(factory, bound, counter, client, nextAttempt(), System::nanoTime);
        recorder.record(write);
        return write;
    }

    /** Commits the increment and records its outcome. */
    public FencedWrite commit(FencedIncrement increment) {
        checkValid();
        FencedWrite write = increment.commit(client, nextAttempt(), System::nanoTime);
        recorder.record(write);
        return write;
    }

    /** Commits the control increment with this section's token and records its outcome. */
    public FencedWrite commit(UnfencedIncrement increment) {
        checkValid();
        FencedWrite write = increment.commit(client, nextAttempt(), lease.token(), System::nanoTime);
        recorder.record(write);
        return write;
    }

    private String nextAttempt() {
        return client + "#" + ATTEMPTS.incrementAndGet();
    }

    /** Waits up to {@code timeout} for the lease's loss notification; true if it came. */
    public boolean awaitLoss(Duration timeout) throws InterruptedException {
        return lost.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Leaves the section: records it, then releases the lease. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        long exit = System.nanoTime();
        boolean valid = lease.isValid();
        if (valid) {
            lastValidNanos = exit;
        }
        try {
            recorder.record(new CriticalSection(
                    lease.lockName(),
                    client,
                    lease.token(),
                    acquireStartNanos,
                    enterNanos,
                    lastValidNanos,
                    exit,
                    !valid || lost.getCount() == 0));
        } finally {
            lease.close();
        }
    }
}
