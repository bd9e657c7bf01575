package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.redis.RedisCluster;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A failover inside a Redis Cluster: the master of a lock's slot is SIGKILLed, its replica is
 * promoted by the cluster (node timeout 2 s), and the client is granted the lock on the promoted
 * replica within one acquisition's wait, with a token larger than every token before the kill.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockClusterFailoverIT {
    /** Cluster node timeout 2 s, then the replica's election: the wait covers both with room. */
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aLockIsGrantedOnThePromotedReplicaWithinTheWaitAndItsTokensKeepGrowing() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3)) {
            RedlockKeys keys = RedlockKeys.defaults();
            String name = "cluster:failover";
            int slot = cluster.slotOf(keys.lock(name));
            RedisServerProcess master = cluster.ownerOf(slot);
            RedisServerProcess replica = cluster.addReplica(master);
            LockConfig config = LockConfig.builder()
                    .backend("redlock")
                    .set(RedlockSettings.CLUSTER_NODES, cluster.seeds())
                    .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(1))
                    .set(RedlockSettings.RETRY_DELAY, Duration.ofMillis(100))
                    .leaseTime(Duration.ofSeconds(10))
                    .build();
            try (TestClient client = TestClient.create(config)) {
                long before = 0;
                for (int i = 0; i < 10; i++) {
                    try (Lease lease = client.lock(name).acquire(WAIT)) {
                        assertThat(lease.token()).isGreaterThan(before);
                        before = lease.token();
                    }
                }
                // the replica has the counter before the kill: the token order holds by the counter (a
                // replica just added may still be in its first sync, so it is waited for, not asked once)
                String last = String.valueOf(before);
                Await.until(
                        "the replica has the last token " + last,
                        Duration.ofSeconds(15),
                        () -> last.equals(
                                replica.commands(List.of(List.of("READONLY"), List.of("GET", keys.token(name))))));
                master.kill();
                long killedAt = System.nanoTime();
                Lease after = client.lock(name).acquire(WAIT);
                long grantedMillis = (System.nanoTime() - killedAt) / 1_000_000;
                try (after) {
                    assertThat(cluster.ownerOf(slot))
                            .as("owner after the failover")
                            .isSameAs(replica);
                    assertThat(after.token())
                            .as("first token after the failover")
                            .isGreaterThan(before);
                    assertThat(replica.command("GET", keys.token(name))).isEqualTo(String.valueOf(after.token()));
                }
                System.out.printf(
                        "RedlockClusterFailoverIT: granted on the promoted replica %d ms after the SIGKILL%n",
                        grantedMillis);
                assertThat(grantedMillis).as("within the wait").isLessThan(WAIT.toMillis());
            }
        }
    }
}
