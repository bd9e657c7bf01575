package dev.fencedlock.spring.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.internal.binding.ThreadLeaseBinder;
import dev.fencedlock.spring.CurrentLease;
import java.util.Optional;

/**
 * The thread's current lease as seen from outside this package: read and bound by {@link
 * CurrentLease}, and the starter's {@link ThreadLeaseBinder} (registered in {@code
 * META-INF/services}, which needs a public class), so that the ShedLock and Spring Integration
 * modules fence their holders' transactions through {@code dev.fencedlock.internal.binding.ThreadLease} without
 * referring to the starter. Thread-safe (stateless; the binding is per thread).
 */
public final class CurrentLeaseBinder implements ThreadLeaseBinder {
    /** The innermost lease a locked call runs under on this thread; empty outside any. */
    public static Optional<Lease> current() {
        return ActiveLease.current().map(ActiveLease::lease);
    }

    /**
     * Makes {@code lease} current on this thread until the returned handle is closed there, as a
     * locked call does for its body.
     */
    public static AutoCloseable open(Lease lease) {
        return ActiveLease.bind(lease);
    }

    @Override
    public AutoCloseable bind(Lease lease) {
        return CurrentLease.bind(lease);
    }
}
