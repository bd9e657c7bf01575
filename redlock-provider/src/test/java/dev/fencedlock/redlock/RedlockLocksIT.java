package dev.fencedlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Clients built by {@link RedlockLocks} from typed settings, on three real redis-server processes. */
class RedlockLocksIT {

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(3);

    @Test
    void clientsOfTheTypedFactoryExcludeEachOtherAndTheirTokensGrow() throws InterruptedException {
        // the servers were started moments ago: a real quarantine would keep them out
        RedlockSettings settings = RedlockSettings.builder()
                .nodes(redis.servers().uris())
                .restartQuarantine(Duration.ZERO)
                .nodeTimeout(Duration.ofSeconds(1))
                .build();
        LockConfig common = LockConfig.builder()
                .backend(RedlockLocks.BACKEND)
                .leaseTime(Duration.ofSeconds(10))
                .build();
        try (LockClient first = RedlockLocks.create(settings);
                LockClient second = RedlockLocks.create(common, settings)) {
            long firstToken;
            try (Lease held = first.lock("typed:a").acquire(Duration.ofSeconds(5))) {
                assertThat(second.lock("typed:a").tryAcquire(Duration.ZERO)).isEmpty();
                firstToken = held.token();
            }
            try (Lease next = second.lock("typed:a").acquire(Duration.ofSeconds(5))) {
                assertThat(next.token()).isGreaterThan(firstToken);
                assertThat(next.remaining()).isGreaterThan(Duration.ofSeconds(5));
                assertThat(first.lock("typed:a").tryAcquire(Duration.ZERO)).isEmpty();
            }
        }
    }
}
