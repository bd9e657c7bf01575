package dev.fencedlock.testkit.faults;

import dev.fencedlock.testkit.local.LocalLockFaults;

/**
 * The {@code local} backend: {@link LocalLockFaults#loseLease}. The backend keeps no trace of a
 * grant it forgot, so a lock that is not held is not reported.
 */
final class LocalGrant implements GrantRemover {
    /** The value of {@code fencedlock.backend} that selects the in-process backend. */
    static final String BACKEND = "local";

    @Override
    public void remove(String lockName) {
        LocalLockFaults.loseLease(lockName);
    }
}
