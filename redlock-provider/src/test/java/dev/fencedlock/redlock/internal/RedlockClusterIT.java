package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.redis.RedisCluster;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code fencedlock.redlock.cluster.nodes} against a real Redis Cluster of three masters: locks
 * spread over the shards with every key of a lock in its slot, and the tokens of one name keep
 * growing across grants and across a resharding of its slot.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockClusterIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static LockConfig config() {
        return LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.CLUSTER_NODES, cluster.seeds())
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(2))
                .set(RedlockSettings.RETRY_DELAY, Duration.ofMillis(50))
                .leaseTime(Duration.ofSeconds(10))
                .build();
    }

    @Test
    void hundredNamesSpreadOverTheShardsWithEachLocksKeysOnItsOwner() throws Exception {
        RedlockKeys keys = RedlockKeys.defaults();
        Map<Integer, Integer> locksPerPort = new HashMap<>();
        try (TestClient client = TestClient.create(config())) {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                String name = "cluster:spread-" + i;
                Lease lease = client.lock(name).acquire(WAIT);
                leases.add(lease);
                int slot = cluster.slotOf(keys.lock(name));
                assertThat(cluster.slotOf(keys.token(name)))
                        .as("token slot of %s", name)
                        .isEqualTo(slot);
                RedisServerProcess owner = cluster.ownerOf(slot);
                assertThat(owner.command("EXISTS", keys.lock(name), keys.token(name)))
                        .as("lock and token of %s on the owner of slot %d, %s", name, slot, owner)
                        .isEqualTo(2L);
                assertThat(owner.command("GET", keys.token(name))).isEqualTo(String.valueOf(lease.token()));
                locksPerPort.merge(owner.port(), 1, Integer::sum);
            }
            for (Lease lease : leases) {
                lease.close();
            }
        }
        // released: only the 100 token counters are left, no lock key and no per-lock lease record
        long keysLeft = 0;
        for (RedisServerProcess master : cluster.all()) {
            List<?> left = (List<?>) master.command("KEYS", "fencedlock:{cluster:spread-*");
            assertThat(left).allSatisfy(key -> assertThat(String.valueOf(key)).endsWith(":token"));
            keysLeft += left.size();
        }
        assertThat(keysLeft).as("keys of the 100 names after release").isEqualTo(100);
        System.out.printf("RedlockClusterIT: 100 names per master port %s%n", locksPerPort);
        assertThat(locksPerPort).as("locks per master port").hasSizeGreaterThanOrEqualTo(2);
        assertThat(locksPerPort.values().stream().mapToInt(Integer::intValue).sum())
                .isEqualTo(100);
    }

    @Test
    void tokensOfOneNameGrowAcrossGrantsAndAcrossAReshardingOfItsSlot() throws Exception {
        String name = "cluster:reshard";
        RedlockKeys keys = RedlockKeys.defaults();
        int slot = cluster.slotOf(keys.lock(name));
        long previous = 0;
        try (TestClient client = TestClient.create(config())) {
            for (int i = 0; i < 20; i++) {
                try (Lease lease = client.lock(name).acquire(WAIT)) {
                    assertThat(lease.token()).as("grant %d", i).isGreaterThan(previous);
                    previous = lease.token();
                }
            }
            RedisServerProcess source = cluster.ownerOf(slot);
            RedisServerProcess target =
                    cluster.all().stream().filter(s -> s != source).findFirst().orElseThrow();
            // held across the move: the lock key and the counter migrate with the slot
            Lease held = client.lock(name).acquire(WAIT);
            assertThat(held.token()).isGreaterThan(previous);
            previous = held.token();
            cluster.moveSlot(slot, source, target);
            assertThat(cluster.ownerOf(slot)).isSameAs(target);
            assertThat(target.command("GET", keys.token(name))).isEqualTo(String.valueOf(previous));
            // the first call meets MOVED; a retry within the wait reaches the new owner, where it is held
            assertThat(client.lock(name).tryAcquire(Duration.ofMillis(500)))
                    .as("still held on the new owner")
                    .isEmpty();
            held.close();
            long movedAt = System.nanoTime();
            for (int i = 0; i < 20; i++) {
                try (Lease lease = client.lock(name).acquire(WAIT)) {
                    assertThat(lease.token()).as("grant %d after the move", i).isGreaterThan(previous);
                    previous = lease.token();
                }
            }
            assertThat(target.command("GET", keys.token(name))).isEqualTo(String.valueOf(previous));
            System.out.printf(
                    "RedlockClusterIT: 20 grants after moving slot %d took %d ms%n",
                    slot, (System.nanoTime() - movedAt) / 1_000_000);
        }
    }

    /**
     * A one-master cluster formed without {@code cluster-announce-ip} never learns its own address
     * and names itself with an empty host in {@code CLUSTER SLOTS}: the client takes the host it
     * asked, instead of failing every call with "node URI 'redis://:PORT' has no host".
     */
    @Test
    void aMasterThatNamesItselfWithAnEmptyHostIsReachedAtTheHostAsked() throws Exception {
        try (RedisCluster single = RedisCluster.start(1)) {
            RedisServerProcess master = single.get(0);
            Object slots = master.command("CLUSTER", "SLOTS");
            assertThat(String.valueOf(slots)).as("the master's own entry").contains("[0, 16383, [, ");
            LockConfig config = LockConfig.builder()
                    .backend("redlock")
                    .set(RedlockSettings.CLUSTER_NODES, single.seeds())
                    .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(2))
                    .leaseTime(Duration.ofSeconds(10))
                    .build();
            try (TestClient client = TestClient.create(config)) {
                long previous = 0;
                for (int i = 0; i < 3; i++) {
                    try (Lease lease = client.lock("cluster:one-master").acquire(WAIT)) {
                        assertThat(lease.token()).isGreaterThan(previous);
                        previous = lease.token();
                    }
                }
            }
        }
    }
}
