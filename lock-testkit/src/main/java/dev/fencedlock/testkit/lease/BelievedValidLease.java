package dev.fencedlock.testkit.lease;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostListener;
import java.time.Duration;

/**
 * A lease as a paused holder sees it when it wakes up: it checked validity just before the pause,
 * so it goes on as if the lease were still valid. Its token is the real, stale one. For tests that
 * show the fence, not the lease check, refusing a stale holder. Immutable; thread-safe as the
 * wrapped lease is.
 */
public final class BelievedValidLease implements Lease {
    private final Lease stale;

    public BelievedValidLease(Lease stale) {
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
