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
 *
 * <p>Public for {@link java.util.ServiceLoader}, which finds it through {@code
 * META-INF/services/dev.fencedlock.spi.LockProviderFactory}, and for the faults lock-testkit's
 * {@code LocalLockFaults} forces on the locks of this JVM (its static methods); not API.
 */
public final class LocalProviderFactory implements LockProviderFactory {
    public static final String BACKEND = "local";

    /**
     * Forgets the grant of {@code lockName}, so that the lock is free at once; its holder finds out
     * when it next talks to the backend.
     */
    public static void forceRelease(String lockName) {
        LocalLockTable.SHARED.forceRelease(lockName);
    }

    /**
     * Ends the lease holding {@code lockName} now: it is lost at once and the lock is free.
     *
     * @return whether a lease held the lock
     */
    public static boolean forceExpire(String lockName) {
        return LocalLockTable.SHARED.forceExpire(lockName);
    }

    /**
     * Moves the tokens of every local lock forward by at least {@code count}.
     *
     * @return a token below the next grant's
     */
    public static long skipTokens(long count) {
        return LocalLockTable.SHARED.skipTokens(count);
    }

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
