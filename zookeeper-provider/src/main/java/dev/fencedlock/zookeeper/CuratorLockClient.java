package dev.fencedlock.zookeeper;

import dev.fencedlock.FencedLock;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockNames;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link LockClient} that {@link ZooKeeperLocks} returns: a provider on a borrowed Curator
 * client plus its own lease runtime. Thread-safe.
 */
final class CuratorLockClient implements LockClient {
    private final LockConfig config;
    private final LeaseRuntime runtime;
    private final LockProvider provider;
    private final AtomicBoolean closed = new AtomicBoolean();

    CuratorLockClient(LockConfig config, LeaseRuntime runtime, LockProvider provider) {
        this.config = config;
        this.runtime = runtime;
        this.provider = provider;
    }

    @Override
    public FencedLock lock(String name) {
        LockNames.requireValid(name);
        if (closed.get()) {
            throw new IllegalStateException("this ZooKeeper LockClient is closed");
        }
        return provider.lock(name);
    }

    @Override
    public LockConfig config() {
        return config;
    }

    /** Releases this client's leases and stops listening to the Curator client, leaving it open. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            runtime.close();
        } finally {
            provider.close();
        }
    }

    @Override
    public String toString() {
        return "LockClient{backend=zookeeper, " + provider + ", heldLeases=" + runtime.heldLeases() + "}";
    }
}
