package dev.fencedlock.testkit;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.local.LocalLockFaults;

/** The in-process {@code local} backend passes the shared contract. */
class LocalLockContractTest extends LockContractTest {

    @Override
    protected LockConfig.Builder configuration() {
        return LockConfig.builder().backend("local");
    }

    @Override
    protected void breakLease(Lease lease) {
        LocalLockFaults.loseLease(lease.lockName());
    }
}
