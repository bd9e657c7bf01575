package dev.fencedlock.testkit.faults;

import dev.fencedlock.internal.local.LocalProviderFactory;
import dev.fencedlock.testkit.local.LocalLockFaults;

/** The {@code local} backend: {@link LocalLockFaults#loseLease}. */
final class LocalGrant implements GrantRemover {
    static final String BACKEND = LocalProviderFactory.BACKEND;

    @Override
    public void remove(String lockName) {
        LocalLockFaults.loseLease(lockName);
    }
}
