package dev.fencedlock.internal.local;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.FencedLock;
import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import dev.fencedlock.spi.LockProviderFactory;
import java.util.List;

/**
 * The {@code local} backend: locks that exist only inside this JVM, with the same semantics and
 * token rules as the distributed backends. For unit tests and single-process applications.
 */
public final class LocalProviderFactory implements LockProviderFactory {
    public static final String BACKEND = "local";

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public LockProvider create(LockConfig config, LeaseRuntime runtime) {
        return new LockProvider() {
            @Override
            public FencedLock lock(String name) {
                return new LocalFencedLock(name, runtime, LocalLockTable.SHARED);
            }

            @Override
            public BackendStatus status(String backend) {
                return new BackendStatus(backend, BackendStatus.State.UP, List.of());
            }

            @Override
            public void close() {
                // the shared table outlives any one client; leases were released by the runtime
            }
        };
    }
}
