package dev.fencedlock.integration;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.CurrentLease;

/**
 * A held lock's lease made the owning thread's current lease through the fencedlock Spring Boot
 * starter, when the starter is on the class path; nothing otherwise. Bound and closed by the owning
 * thread (a lock is only taken and released by its owner). Not thread-safe.
 */
final class ThreadLease {
    static final ThreadLease NONE = new ThreadLease(null);
    private static final boolean STARTER_PRESENT = isPresent("dev.fencedlock.spring.CurrentLease");

    private final AutoCloseable binding;

    private ThreadLease(AutoCloseable binding) {
        this.binding = binding;
    }

    static ThreadLease bind(Lease lease) {
        return STARTER_PRESENT ? new ThreadLease(Starter.bind(lease)) : NONE;
    }

    void close() {
        if (binding == null) {
            return;
        }
        try {
            binding.close();
        } catch (Exception e) {
            throw new IllegalStateException("Ending the lock's lease binding failed", e);
        }
    }

    private static boolean isPresent(String className) {
        try {
            Class.forName(className, false, ThreadLease.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Refers to the starter; loaded only when it is present. */
    private static final class Starter {
        static AutoCloseable bind(Lease lease) {
            return CurrentLease.bind(lease);
        }
    }
}
