package dev.fencedlock.shedlock.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.CurrentLease;

/** The only class that refers to the starter; loaded only when it is present. */
final class StarterBinding {
    private StarterBinding() {}

    static AutoCloseable bind(Lease lease) {
        return CurrentLease.bind(lease);
    }
}
