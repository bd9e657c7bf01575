package dev.fencedlock.integration;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;

/** The contract on the local backend; both "instances" share the process's one local lock table. */
class LocalFencedLockRegistryTest extends FencedLockRegistryContract {
    @Override
    protected LockClient newClient() {
        return LockClient.create(LockConfig.builder().backend("local").build());
    }
}
