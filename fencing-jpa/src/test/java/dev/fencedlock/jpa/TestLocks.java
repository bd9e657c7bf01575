package dev.fencedlock.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.internal.local.LocalProviderFactory;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Locks of the in-process {@code local} backend on a clock that runs with the JVM's monotonic
 * clock plus a skew the test can move forward. {@link #expire} lets a lease's time pass at once:
 * the lease is no longer valid from that call on, as it would be after waiting, and the lock can
 * be granted again; no test step before it is squeezed by a short lease, and no test waits for
 * time to pass.
 *
 * <p>Moving the clock moves it for every lease of these locks: expire a lease only while no other
 * lease that must stay valid is held. Thread-safe.
 */
final class TestLocks implements AutoCloseable {
    private final AtomicLong skew = new AtomicLong();
    private final LeaseRuntime runtime;
    private final LockProvider provider;

    TestLocks() {
        LockConfig config =
                LockConfig.builder().backend(LocalProviderFactory.BACKEND).build();
        runtime = new LeaseRuntime(config, () -> System.nanoTime() + skew.get());
        provider = new LocalProviderFactory().create(config, runtime);
    }

    FencedLock lock(String name) {
        return provider.lock(name);
    }

    /** Moves the clock past the end of {@code lease}'s validity. */
    void expire(Lease lease) {
        skew.addAndGet(lease.remaining().toNanos() + 1);
        assertThat(lease.isValid())
                .as("lease of token %d after its time passed", lease.token())
                .isFalse();
    }

    @Override
    public void close() {
        try {
            runtime.close();
        } finally {
            provider.close();
        }
    }
}
