package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code fencedlock.redlock.wait-replicas}: a grant counts only once the replicas acknowledged it
 * ({@code WAIT} after the acquire script). A master with one replica in sync grants as before; with
 * the replica stopped (SIGSTOP) the grant is not acknowledged in time, counts as a failed node (so
 * {@code tryAcquire} reports {@link LockUnavailableException}) and is released on the master; asking for more replicas than there are never grants. The cost of the
 * acknowledgement is printed (mean acquire and release, with and without).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockReplicaAckIT {
    private static final int ROUNDS = 200;

    private static RedisServerProcess master;
    private static RedisServerProcess replica;

    @BeforeAll
    static void start() throws InterruptedException {
        master = RedisServerProcess.start();
        replica = RedisServerProcess.builder()
                .arguments("--replicaof", "127.0.0.1", Integer.toString(master.port()))
                .start();
        Await.until(
                "the replica is in sync",
                Duration.ofSeconds(15),
                () -> String.valueOf(replica.command("INFO", "replication")).contains("master_link_status:up"));
    }

    @AfterAll
    static void stop() {
        replica.close();
        master.close();
    }

    private static LockConfig.Builder config(int replicas) {
        return LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.NODES, master.uri())
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofMillis(500))
                .set(RedlockSettings.RESTART_QUARANTINE, Duration.ZERO)
                .set(RedlockSettings.RETRY_DELAY, Duration.ofMillis(20))
                .set(RedlockSettings.WAIT_REPLICAS, Integer.toString(replicas))
                .set(RedlockSettings.WAIT_REPLICAS_TIMEOUT, Duration.ofMillis(200))
                .leaseTime(Duration.ofSeconds(10));
    }

    @Test
    void anAcknowledgedGrantIsGrantedAndAnUnacknowledgedOneIsReleased() throws Exception {
        String lock = "replica-ack";
        String key = RedlockKeys.defaults().lock(lock);
        try (LockClient client = LockClient.create(config(1).build())) {
            try (Lease lease = client.lock(lock).acquire(Duration.ofSeconds(5))) {
                assertThat(replica.command("EXISTS", key))
                        .as("the replica has the key once the grant returns")
                        .isEqualTo(1L);
            }
            replica.pause();
            try {
                long start = System.nanoTime();
                assertThatThrownBy(() -> client.lock(lock).tryAcquire(Duration.ZERO))
                        .as("no replica acknowledged the grant: the node counts as failed")
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("0 of the 1 replicas required");
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.printf("replica acknowledgement: an unacknowledged attempt took %d ms%n", tookMillis);
                assertThat(tookMillis)
                        .as("one attempt: WAIT's 200 ms within the 500 ms node timeout, then the release")
                        .isLessThan(500 + 500 + 1_000);
                Await.until(
                        "the unacknowledged grant is released on the master",
                        Duration.ofSeconds(5),
                        () -> Long.valueOf(0).equals(master.command("EXISTS", key)));
            } finally {
                replica.resume();
            }
            try (Lease lease = client.lock(lock).acquire(Duration.ofSeconds(5))) {
                assertThat(lease.isValid()).isTrue();
            }
        }
    }

    @Test
    void moreReplicasThanThereAreNeverGrantAndTheFailureSaysWhy() throws Exception {
        try (LockClient client = LockClient.create(config(2).build())) {
            assertThatThrownBy(() -> client.lock("replica-ack-two").acquire(Duration.ofMillis(300)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("1 of the 2 replicas required")
                    .hasMessageContaining(RedlockSettings.WAIT_REPLICAS);
        }
    }

    @Test
    void aWaitTimeoutNotShorterThanTheNodeTimeoutIsRejectedAtCreation() {
        LockConfig config = config(1)
                .set(RedlockSettings.WAIT_REPLICAS_TIMEOUT, Duration.ofMillis(500))
                .build();
        assertThatThrownBy(() -> LockClient.create(config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(RedlockSettings.WAIT_REPLICAS_TIMEOUT)
                .hasMessageContaining(RedlockSettings.NODE_TIMEOUT);
    }

    /**
     * A measurement, printed for docs/which-redis.md; it fails only if an acknowledged grant fails
     * with the replica in sync.
     */
    @Test
    void theCostOfTheAcknowledgement() throws Exception {
        meanMicros(1); // warms both paths' JIT before either is timed
        long without = meanMicros(0);
        long with = meanMicros(1);
        System.out.printf(
                "replica acknowledgement: acquire+release %d us without WAIT, %d us with WAIT 1 (mean of %d, one"
                        + " master and one replica on this machine)%n",
                without, with, ROUNDS);
    }

    private static long meanMicros(int replicas) throws Exception {
        try (LockClient client = LockClient.create(config(replicas).build())) {
            for (int i = 0; i < 20; i++) {
                client.lock("replica-ack-cost").acquire(Duration.ofSeconds(5)).close();
            }
            long start = System.nanoTime();
            for (int i = 0; i < ROUNDS; i++) {
                client.lock("replica-ack-cost").acquire(Duration.ofSeconds(5)).close();
            }
            return TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start) / ROUNDS;
        }
    }
}
