package dev.fencedlock.shedlock;

import dev.fencedlock.LockClient;
import dev.fencedlock.testkit.junit.LockBackendExtension;
import java.util.Optional;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract on redlock over three real redis-server processes. */
class RedlockFencedLockProviderIT extends FencedLockProviderContract {
    @RegisterExtension
    static final LockBackendExtension BACKEND = LockBackendExtension.redlock(3);

    @Override
    protected LockClient newClient() {
        return BACKEND.newClient();
    }

    @Override
    protected Optional<String> minimumLease() {
        return Optional.of("3ms");
    }
}
