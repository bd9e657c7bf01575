package dev.fencedlock;

/**
 * Told once when a lease is lost (see {@link Lease#onLost}). Runs on an internal fencedlock thread,
 * or on the registering thread when the lease was already lost; it must return quickly and must not
 * block on the lock it is told about.
 */
@FunctionalInterface
public interface LeaseLostListener {
    void leaseLost(Lease lease, LeaseLostException cause);
}
