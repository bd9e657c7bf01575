package dev.fencedlock.integration;

import dev.fencedlock.LockClient;
import dev.fencedlock.testkit.junit.LockBackendExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract on redlock over three real redis-server processes. */
class RedlockFencedLockRegistryIT extends FencedLockRegistryContract {
    @RegisterExtension
    static final LockBackendExtension BACKEND = LockBackendExtension.redlock(3);

    @Override
    protected LockClient newClient() {
        return BACKEND.newClient();
    }
}
