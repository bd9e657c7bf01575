package dev.fencedlock.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.junit.LockBackendExtension;
import dev.fencedlock.testkit.local.LocalLockFaults;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the README's "Testing your code" shows, run against real backends as a user's test would. */
class UserTestSupportIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** Two clients take turns on one lock; the second grant's token is the larger. */
    static void clientsTakeTurns(LockBackendExtension backend) throws InterruptedException {
        String name = "readme:" + UUID.randomUUID();
        try (LockClient a = backend.newClient();
                LockClient b = backend.newClient()) {
            long first;
            try (Lease lease = a.lock(name).acquire(WAIT)) {
                assertThat(b.lock(name).tryAcquire(Duration.ZERO))
                        .as("held by the other client")
                        .isEmpty();
                first = lease.token();
            }
            try (Lease lease = b.lock(name).acquire(WAIT)) {
                assertThat(lease.token()).isGreaterThan(first);
            }
        }
    }

    @Nested
    class OnRedisNodes {
        @RegisterExtension
        static final LockBackendExtension backend = LockBackendExtension.redlock(3);

        @Test
        void clientsTakeTurnsWithGrowingTokens() throws InterruptedException {
            clientsTakeTurns(backend);
        }
    }

    @Nested
    class OnZooKeeper {
        @RegisterExtension
        static final LockBackendExtension backend = LockBackendExtension.zookeeper();

        @Test
        void clientsTakeTurnsWithGrowingTokens() throws InterruptedException {
            clientsTakeTurns(backend);
        }
    }

    @Nested
    class OnTheLocalBackend {
        @Test
        void anExpiredLeaseTellsItsHolderAndTheNextHolderHasALargerToken() throws InterruptedException {
            String name = "readme:" + UUID.randomUUID();
            LockConfig config = LockConfig.builder().backend("local").build();
            try (LockClient client = LockClient.create(config)) {
                Lease lease = client.lock(name).acquire(WAIT);
                CountDownLatch lost = new CountDownLatch(1);
                lease.onLost((l, cause) -> lost.countDown());

                LocalLockFaults.expireLease(name);

                assertThat(lease.isValid()).isFalse();
                assertThat(lost.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
                try (Lease next = client.lock(name).tryAcquire(Duration.ZERO).orElseThrow()) {
                    assertThat(next.token()).isGreaterThan(lease.token());
                }
            }
        }
    }
}
