package dev.fencedlock.spring.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.internal.binding.ThreadLeaseBinder;
import dev.fencedlock.spring.CurrentLease;

/**
 * The starter's {@link ThreadLeaseBinder}: {@link CurrentLease#bind}, so that the ShedLock and
 * Spring Integration modules fence their holders' transactions through {@code
 * dev.fencedlock.internal.binding.ThreadLease} without referring to the starter. Thread-safe (stateless).
 */
public final class CurrentLeaseBinder implements ThreadLeaseBinder {
    @Override
    public AutoCloseable bind(Lease lease) {
        return CurrentLease.bind(lease);
    }
}
