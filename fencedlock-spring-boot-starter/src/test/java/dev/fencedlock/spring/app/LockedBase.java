package dev.fencedlock.spring.app;

import dev.fencedlock.spring.CurrentLease;
import dev.fencedlock.spring.Locked;

/** {@code @Locked} declared on a superclass method that the subclass overrides without repeating it. */
public abstract class LockedBase {

    /** The lock name of the lease this call runs under; empty outside one. */
    @Locked("'base:' + #p0")
    public String leaseFromSuperclass(String key) {
        return CurrentLease.get().map(lease -> lease.lockName()).orElse("");
    }
}
