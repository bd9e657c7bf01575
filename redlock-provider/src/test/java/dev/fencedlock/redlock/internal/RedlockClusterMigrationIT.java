package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.redlock.RedisNodeAddress;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.testkit.redis.RedisCluster;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;

/**
 * A lock whose slot is half-way through a migration, set up by hand as {@code redis-cli --cluster
 * reshard} would leave it between two {@code MIGRATE}s: {@code SETSLOT IMPORTING} on the target,
 * {@code MIGRATING} on the source, then the lock's keys moved a few at a time. At each step the
 * lock is acquired, extended and released, and what must hold is checked: never a grant while
 * another lease holds the lock, tokens strictly increasing across every grant before, during and
 * after the migration; what may fail is only "unavailable" ({@code TRYAGAIN} while the lock's keys
 * are split between the two nodes). The holder follows {@code ASK} to the target with {@code
 * ASKING} once its keys are all there.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockClusterMigrationIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration FIXED_LEASE = Duration.ofSeconds(30);
    private static final RedlockKeys KEYS = RedlockKeys.defaults();
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(2);
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
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(1))
                .set(RedlockSettings.RETRY_DELAY, Duration.ofMillis(50))
                .leaseTime(Duration.ofSeconds(10))
                .build();
    }

    private static RedisServerProcess other(RedisServerProcess node) {
        return cluster.all().stream().filter(s -> s != node).findFirst().orElseThrow();
    }

    /**
     * How many of {@code keys} {@code node} has: one {@code EXISTS} per key, each after {@code
     * ASKING}, so that an importing node answers (it refuses a multi-key call missing some keys).
     */
    private static long existing(RedisServerProcess node, String... keys) {
        long found = 0;
        for (String key : keys) {
            found += (Long) node.commands(List.of(List.of("ASKING"), List.of("EXISTS", key)));
        }
        return found;
    }

    @Test
    void aLockStaysExclusiveWithGrowingTokensWhileItsKeysMoveAFewAtATime() throws Exception {
        String name = "cluster:migrating";
        String lock = KEYS.lock(name);
        String token = KEYS.token(name);
        String expiries = lock + ":lease-expiries";
        String lengths = lock + ":lease-lengths";
        int slot = cluster.slotOf(lock);
        List<Long> tokens = new ArrayList<>();
        try (TestClient holder = TestClient.create(config());
                TestClient contender = TestClient.create(config())) {
            for (int i = 0; i < 3; i++) {
                try (Lease lease = holder.lock(name).acquire(WAIT)) {
                    tokens.add(lease.token());
                }
            }
            Lease held = holder.lock(name).acquire(WAIT, FIXED_LEASE);
            tokens.add(held.token());
            RedisServerProcess source = cluster.ownerOf(slot);
            RedisServerProcess target = other(source);
            assertThat(existing(source, lock, token, expiries, lengths))
                    .as("the held lock's four keys on its slot's owner")
                    .isEqualTo(4);

            cluster.beginMigration(slot, source, target);
            // nothing moved yet: the old owner has every key and serves every call
            held.extend(FIXED_LEASE);
            assertThat(contender.lock(name).tryAcquire(Duration.ZERO))
                    .as("taken, nothing moved")
                    .isEmpty();

            cluster.migrateKeys(source, target, List.of(token));
            // the counter moved, the lock key and records did not: the holder's calls name only
            // these, the contender's names the counter too
            held.extend(FIXED_LEASE);
            assertUnavailableWithTryAgain(name, contender, Duration.ZERO);

            cluster.migrateKeys(source, target, List.of(lock));
            // the lock key moved, its records did not: every call of the lock is split
            assertThatThrownBy(() -> held.extend(FIXED_LEASE))
                    .as("extension, lock key and records on two nodes")
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("TRYAGAIN");
            assertThat(held.isValid())
                    .as("an unavailable extension keeps the lease")
                    .isTrue();
            assertUnavailableWithTryAgain(name, contender, Duration.ZERO);
            assertUnavailableWithTryAgain(name, contender, Duration.ofMillis(300));

            cluster.migrateKeys(source, target, List.of(expiries, lengths));
            // every key on the importing node: the old owner answers ASK, followed with ASKING
            assertThat(source.command("CLUSTER", "COUNTKEYSINSLOT", String.valueOf(slot)))
                    .as("keys of the slot left on the old owner")
                    .isEqualTo(0L);
            assertThat(contender.lock(name).tryAcquire(Duration.ZERO))
                    .as("taken, every key on the importing node")
                    .isEmpty();
            held.extend(FIXED_LEASE);
            assertThat(held.remaining()).isGreaterThan(FIXED_LEASE.minusSeconds(5));
            assertThat(existing(target, lock)).isEqualTo(1);
            held.close();
            assertThat(existing(target, lock, expiries, lengths))
                    .as("released on the importing node: lock key and records gone")
                    .isZero();
            assertThat(existing(target, token)).isEqualTo(1);

            // free now, but a grant needs the lock key and the counter in one place, and a free lock
            // has no lock key: the importing node refuses a call missing some of its keys
            assertUnavailableWithTryAgain(name, contender, Duration.ZERO);
            assertThat(source.command("CLUSTER", "COUNTKEYSINSLOT", String.valueOf(slot)))
                    .as("nothing written on the old owner while the migration is open")
                    .isEqualTo(0L);
            assertThat(existing(target, lock))
                    .as("no lock key on the new owner")
                    .isZero();

            cluster.finishMigration(slot, source, target);
            assertThat(cluster.ownerOf(slot)).isSameAs(target);
            for (TestClient client : List.of(contender, holder, contender)) {
                try (Lease lease = client.lock(name).acquire(WAIT)) {
                    tokens.add(lease.token());
                }
            }
            assertThat(target.command("GET", token)).isEqualTo(String.valueOf(tokens.get(tokens.size() - 1)));
        }
        assertThat(tokens).as("every grant's token, in order").isSorted().doesNotHaveDuplicates();
        System.out.printf("RedlockClusterMigrationIT: tokens %s%n", tokens);
    }

    /**
     * A resharding onto a new shard fills a master that owns no slot until its first migration
     * ends. The client reaches it only by following {@code ASK}; the slot map, read every second,
     * does not name it, and the connections to it must outlive those lookups, or every call that
     * follows an {@code ASK} would open a new connection and the calls in flight would fail.
     */
    @Test
    void aMasterWithoutSlotsKeepsItsConnectionsWhileItImports() throws Exception {
        String name = "cluster:new-shard";
        String lock = KEYS.lock(name);
        int slot = cluster.slotOf(lock);
        RedisServerProcess shard = cluster.addEmptyMaster();
        try (TestClient client = TestClient.create(config())) {
            ClusterRedisNode node = (ClusterRedisNode) client.provider().nodes().get(0);
            Lease held = client.lock(name).acquire(WAIT, FIXED_LEASE);
            RedisServerProcess source = cluster.ownerOf(slot);
            cluster.beginMigration(slot, source, shard);
            try {
                cluster.migrateKeys(
                        source,
                        shard,
                        List.of(lock, KEYS.token(name), lock + ":lease-expiries", lock + ":lease-lengths"));
                held.extend(FIXED_LEASE); // follows ASK to the new master
                HostAndPort address = new HostAndPort(shard.host(), shard.port());
                JedisRedisNode connected = node.connectedMasters().get(address);
                assertThat(connected).as("connected to the importing master").isNotNull();
                long lookupsBefore = node.lookups();
                while (node.lookups() < lookupsBefore + 2) {
                    held.extend(FIXED_LEASE); // under traffic the map is read again every second
                    Thread.sleep(100);
                }
                assertThat(node.slotOwners()).doesNotContain(address);
                assertThat(node.connectedMasters())
                        .as("the same connections to the importing master after two lookups that did not name it")
                        .containsEntry(address, connected);
                held.close();
                assertThat(existing(shard, lock))
                        .as("released on the importing master")
                        .isZero();
            } finally {
                cluster.finishMigration(slot, source, shard);
            }
        }
    }

    private static void assertUnavailableWithTryAgain(String name, TestClient client, Duration wait) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> client.lock(name).tryAcquire(wait))
                .as("tryAcquire(%s) while the lock's keys are split", wait)
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("TRYAGAIN");
        System.out.printf(
                "RedlockClusterMigrationIT: tryAcquire(%d ms) unavailable (TRYAGAIN) after %d ms%n",
                wait.toMillis(), (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * On the old owner of a migrating slot a script may not touch a key that is not there, also one
     * it has just emptied (Redis answers "Script attempted to access a non local key"), so
     * release.lua reads the lease records before it empties anything: a release there does its work
     * and answers "released", not that error.
     */
    @Test
    void aReleaseOnTheOldOwnerOfAMigratingSlotAnswersReleased() {
        String name = "cluster:release-while-migrating";
        byte[] lock = bytes(KEYS.lock(name));
        int slot = cluster.slotOf(KEYS.lock(name));
        RedisServerProcess source = cluster.ownerOf(slot);
        RedisServerProcess target = other(source);
        ExecutorService executor = Executors.newCachedThreadPool();
        try (JedisRedisNode node = new JedisRedisNode(
                RedisNodeAddress.parse(RedlockSettings.CLUSTER_NODES, source.uri()),
                Duration.ofSeconds(1),
                null,
                MonotonicClock.SYSTEM,
                executor,
                null,
                ReplicaAck.NONE)) {
            byte[] value = bytes("test-value");
            byte[][] acquireKeys = ClusterRedisNode.inSlot(
                    Script.ACQUIRE, new byte[][] {lock, bytes(KEYS.token(name)), bytes("x"), bytes("y")});
            NodeReply acquired = node.send(Script.ACQUIRE, acquireKeys, new byte[][] {
                        value, bytes("30000"), bytes("1000"), bytes("86400000"), bytes(Long.toString(Long.MAX_VALUE))
                    })
                    .await();
            assertThat(acquired.ok()).as(acquired.describe()).isTrue();
            assertThat(acquired.array().get(0)).isEqualTo(1L);
            cluster.beginMigration(slot, source, target);
            try {
                byte[][] releaseKeys =
                        ClusterRedisNode.inSlot(Script.RELEASE, new byte[][] {lock, bytes("x"), bytes("y")});
                NodeReply released = node.send(Script.RELEASE, releaseKeys, new byte[][] {value, new byte[0]})
                        .await();
                assertThat(released.ok()).as(released.describe()).isTrue();
                assertThat(List.<Object>copyOf(released.array().subList(0, 3)))
                        .as("released, no live lease left")
                        .containsExactly(1L, 0L, 0L);
            } finally {
                cluster.finishMigration(slot, source, target);
            }
            assertThat(target.command("EXISTS", KEYS.lock(name), KEYS.token(name)))
                    .as("after the migration: the counter moved, the released lock key is nowhere")
                    .isEqualTo(1L);
        } finally {
            executor.shutdownNow();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
