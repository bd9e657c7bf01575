package dev.fencedlock.spi;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.LockException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The listener of the fallback's runtime: keeps the fallback's held leases, so that a switch
 * back can stop their renewal (also of a lease granted after the switch back by an acquisition
 * already on its way), and passes every event on to the client's listener.
 */
final class FallbackLeases implements LockEventListener {
    private final LockEventListener delegate;
    private final Set<Lease> held = ConcurrentHashMap.newKeySet();
    private volatile String stopReason;

    FallbackLeases(LockEventListener delegate) {
        this.delegate = delegate;
    }

    /** Stops renewal of every lease held now and of every lease granted until {@link #allowRenewal}. */
    void stopAll(String why) {
        stopReason = why;
        for (Lease lease : held) {
            stop(lease, why);
        }
    }

    void allowRenewal() {
        stopReason = null;
    }

    private static void stop(Lease lease, String why) {
        if (lease instanceof AbstractLease renewing) {
            renewing.stopRenewal(why);
        }
    }

    @Override
    public void leaseGranted(Lease lease) {
        held.add(lease);
        String why = stopReason;
        if (why != null) {
            stop(lease, why);
        }
        delegate.leaseGranted(lease);
    }

    @Override
    public void leaseEnded(Lease lease) {
        held.remove(lease);
        delegate.leaseEnded(lease);
    }

    @Override
    public void leaseLost(Lease lease, LeaseLostException cause) {
        delegate.leaseLost(lease, cause);
    }

    @Override
    public void acquireFinished(String lockName, String backend, AcquireOutcome outcome, Duration elapsed) {
        delegate.acquireFinished(lockName, backend, outcome, elapsed);
    }

    @Override
    public void backendSwitched(String lockName, String from, String to, LockException cause) {
        delegate.backendSwitched(lockName, from, to, cause);
    }
}
