package dev.fencedlock.spring;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.internal.ActiveLease;
import java.util.Optional;

/** The lease of the {@link Locked} call or {@link FencedTransactions} run on the current thread. */
public final class CurrentLease {
    private CurrentLease() {}

    /**
     * The innermost lease a locked call runs under on this thread, for example to record its
     * {@link Lease#token() token}; empty outside any locked call.
     */
    public static Optional<Lease> get() {
        return ActiveLease.current().map(ActiveLease::lease);
    }
}
