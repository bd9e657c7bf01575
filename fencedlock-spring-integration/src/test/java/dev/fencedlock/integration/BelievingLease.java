package dev.fencedlock.integration;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostListener;
import java.time.Duration;

/**
 * A real lease as a paused process still sees it: valid, with its token. What a leader that was
 * deposed while stopped believes when it runs again, before any of its checks catch up.
 */
final class BelievingLease implements Lease {
    private final Lease lease;

    BelievingLease(Lease lease) {
        this.lease = lease;
    }

    @Override
    public String lockName() {
        return lease.lockName();
    }

    @Override
    public long token() {
        return lease.token();
    }

    @Override
    public boolean isValid() {
        return true;
    }

    @Override
    public Duration remaining() {
        return Duration.ofMinutes(1);
    }

    @Override
    public void extend(Duration leaseTime) {}

    @Override
    public void onLost(LeaseLostListener listener) {}

    @Override
    public void close() {}
}
