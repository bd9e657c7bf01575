package dev.fencedlock.redlock;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.internal.FreshNodesProviderFactory;
import dev.fencedlock.testkit.LockContractTest;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The redlock backend passes the shared contract on five real redis-server processes. */
class RedlockContractIT extends LockContractTest {

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(5);

    @Override
    protected LockConfig.Builder configuration() {
        // the servers were started moments ago: any real quarantine would keep them out, and the
        // real backend refuses leases longer than a tiny one; and a loaded build machine can keep a
        // healthy local node from answering within the 50 ms default
        return LockConfig.builder()
                .backend(FreshNodesProviderFactory.BACKEND)
                .set(RedlockSettings.NODES, redis.servers().uris())
                .set(RedlockSettings.RESTART_QUARANTINE, Duration.ofNanos(1))
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(1));
    }

    /** Renewals must fit a 1 s node timeout with room to spare on a loaded build machine. */
    @Override
    protected Duration shortLease() {
        return Duration.ofMillis(1500);
    }

    @Override
    protected void breakLease(Lease lease) {
        for (RedisServerProcess server : redis.servers().all()) {
            server.command("DEL", RedlockKeys.lockKey(lease.lockName()));
        }
    }
}
