package dev.fencedlock.integration;

import dev.fencedlock.LockClient;
import dev.fencedlock.testkit.junit.LockBackendExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract on zookeeper, one in-process server. */
class ZooKeeperFencedLockRegistryIT extends FencedLockRegistryContract {
    @RegisterExtension
    static final LockBackendExtension BACKEND = LockBackendExtension.zookeeper();

    @Override
    protected LockClient newClient() {
        return BACKEND.newClient();
    }
}
