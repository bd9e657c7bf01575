package dev.fencedlock.spring;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostListener;
import java.time.Duration;

/**
 * A lease as a paused holder sees it when it wakes up: it checked validity just before the pause,
 * so it goes on as if the lease were still valid. Its token is the real, stale one.
 */
final class BelievedValidLease implements Lease {
    private final Lease stale;

    BelievedValidLease(Lease stale) {
        this.stale = stale;
    }

    @Override
    public String lockName() {
        return stale.lockName();
    }

    @Override
    public long token() {
        return stale.token();
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
