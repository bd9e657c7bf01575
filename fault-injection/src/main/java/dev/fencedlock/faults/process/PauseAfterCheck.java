package dev.fencedlock.faults.process;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostListener;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A lease as bound for one fenced transaction, with a pause point: the first {@link #isValid()}
 * that finds the lease valid runs {@code pause} before it returns {@code true}. Bound before {@code
 * begin()}, that first call is the transaction's lease check, so the pause falls between the check
 * and the fence guard's statement. Everything else is the lease's own. Thread-safe.
 */
final class PauseAfterCheck implements Lease {
    private final Lease lease;
    private final Runnable pause;
    private final AtomicBoolean armed = new AtomicBoolean(true);

    PauseAfterCheck(Lease lease, Runnable pause) {
        this.lease = lease;
        this.pause = pause;
    }

    @Override
    public boolean isValid() {
        boolean valid = lease.isValid();
        if (valid && armed.compareAndSet(true, false)) {
            pause.run();
        }
        return valid;
    }

    @Override
    public String lockName() {
        return lease.lockName();
    }

    @Override
    public String backend() {
        return lease.backend();
    }

    @Override
    public long token() {
        return lease.token();
    }

    @Override
    public Duration remaining() {
        return lease.remaining();
    }

    @Override
    public void extend(Duration leaseTime) {
        lease.extend(leaseTime);
    }

    @Override
    public void onLost(LeaseLostListener listener) {
        lease.onLost(listener);
    }

    @Override
    public void close() {
        lease.close();
    }
}
