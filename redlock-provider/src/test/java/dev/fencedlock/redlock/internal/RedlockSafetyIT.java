package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisInfo;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redlock on the edges where it could lose safety: node start dating, poisoned counters, resent
 * acquisitions, promoted replicas and the restart quarantine; each on real redis-server processes.
 */
class RedlockSafetyIT {
    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(3);

    /**
     * Redis reports uptime as the difference of two truncated wall-clock seconds, so just after a
     * start in the middle of a second it already says 1. A start dated from that must not come
     * before the moment the server was launched.
     */
    @Test
    void aNodeIsNeverDatedEarlierThanItStarted() throws Exception {
        // launch in the middle of a wall-clock second: Redis then says "1" about half a second later
        while (System.currentTimeMillis() % 1000 < 400 || System.currentTimeMillis() % 1000 > 450) {
            Thread.sleep(5);
        }
        long launched = System.nanoTime();
        try (RedisServerProcess server = RedisServerProcess.start()) {
            String info;
            long probed;
            do {
                Thread.sleep(5);
                info = (String) server.command("INFO", "server");
                probed = System.nanoTime();
            } while (RedisInfo.uptimeSeconds(info) < 1);
            RedisInstance instance = RedisInstance.fromInfo(info, probed);
            assertThat(instance.startedAtNanos())
                    .as(
                            "start dated from %s s of uptime, %d ms after the launch",
                            RedisInfo.uptimeSeconds(info), (probed - launched) / 1_000_000)
                    .isGreaterThanOrEqualTo(launched);
        }
    }

    /** A counter that no grant wrote (Long.MAX, or garbage) is replaced, not obeyed forever. */
    @Test
    void aPoisonedCounterDoesNotPoisonTheLock() throws Exception {
        RedisServers servers = redis.servers();
        for (String poison : List.of(Long.toString(Long.MAX_VALUE), "zzzzzzzzzzzzzzzzzzzzzzzz", "-5")) {
            String name = "safety:poisoned:" + poison;
            for (RedisServerProcess server : servers.all()) {
                server.command("SET", RedlockKeys.tokenKey(name), poison);
            }
            try (TestClient client = TestClient.create(
                    TestClient.config(servers).leaseTime(Duration.ofSeconds(5)).build())) {
                long first;
                try (Lease lease =
                        client.lock(name).tryAcquire(Duration.ofSeconds(2)).orElseThrow()) {
                    first = lease.token();
                }
                Optional<Lease> second = client.lock(name).tryAcquire(Duration.ofSeconds(2));
                assertThat(second).as("a second grant after counter %s", poison).isPresent();
                second.get().close();
                assertThat(first).as("token after counter %s", poison).isPositive();
                assertThat(second.get().token())
                        .as("second token after counter %s", poison)
                        .isGreaterThan(first);
            }
        }
    }

    /**
     * A call that ran on the node but whose reply was lost is sent again on a fresh connection
     * ({@link JedisRedisNode}); the node then finds the lock held by the same value. That is this
     * acquisition's own grant, not "taken".
     */
    @Test
    void aResentAcquireWhoseFirstRunSucceededIsAGrant() {
        RedisServerProcess server = redis.servers().get(0);
        String name = "safety:resent";
        List<String> call = List.of(
                "EVAL",
                Script.ACQUIRE.source(),
                "4",
                RedlockKeys.lockKey(name),
                RedlockKeys.tokenKey(name),
                RedlockKeys.defaults().leaseExpiries(),
                RedlockKeys.defaults().leaseLengths(),
                "value-of-this-attempt",
                "10000",
                "1000",
                "86400000",
                Long.toString(Long.MAX_VALUE / 2));
        List<?> first = (List<?>) server.commands(List.of(call));
        List<?> again = (List<?>) server.commands(List.of(call));
        assertThat(first.get(0)).as("first run").isEqualTo(1L);
        assertThat(again.get(0))
                .as("the same call again: a grant whose counter already held the token")
                .isEqualTo(2L);
        assertThat(again.get(1)).isEqualTo("1000");
    }

    /**
     * A replica promoted behind a node's address has a long uptime and a run id the client never
     * saw, yet may lack lock keys its old master granted. It must sit out the restart quarantine
     * like a restarted node, and count again after it.
     */
    @Test
    void aPromotedReplicaSitsOutTheQuarantine() throws Exception {
        Duration quarantine = Duration.ofSeconds(1);
        try (RedisServerProcess master = RedisServerProcess.start();
                RedisServerProcess replica = RedisServerProcess.start()) {
            replica.command("REPLICAOF", master.host(), Integer.toString(master.port()));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!((String) replica.command("INFO", "replication")).contains("master_link_status:up")) {
                assertThat(System.nanoTime() - deadline)
                        .as("replication link up")
                        .isNegative();
                Thread.sleep(20);
            }
            replica.command("REPLICAOF", "NO", "ONE");
            // old enough by its uptime, with a whole second to spare for the uptime's truncation
            while (RedisInfo.uptimeSeconds((String) replica.command("INFO", "server"))
                    < RedisInfo.uptimeNeededSeconds(quarantine)) {
                Thread.sleep(50);
            }
            LockConfig config = LockConfig.builder()
                    .backend("redlock")
                    .set(RedlockSettings.NODES, List.of(replica.uri()))
                    .set(RedlockSettings.RESTART_QUARANTINE, quarantine)
                    .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(2))
                    .leaseTime(quarantine)
                    .build();
            try (TestClient client = TestClient.create(config)) {
                FencedLock lock = client.lock("safety:promoted");
                assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO))
                        .as("a grant from a replica promoted moments ago")
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("quarantine");
                try (Lease lease = lock.tryAcquire(Duration.ofSeconds(20)).orElseThrow()) {
                    assertThat(lease.isValid())
                            .as("granted once the quarantine passed")
                            .isTrue();
                }
            }
        }
    }

    /**
     * Client A holds a 6 s lease on nodes 0 and 1 (node 2 was held by someone else, who then let
     * go); node 0 then restarts empty.
     * Client B uses 1 s leases and no configured quarantine: by its own lease alone it would count
     * node 0 again after a second, and win on nodes 0 and 2 while A's lease is valid. The record of
     * the longest lease that node 1 returns keeps node 0 out for A's lease.
     */
    @Test
    void theDefaultQuarantineCoversAnotherClientsLongerLease() throws Exception {
        RedisServers servers = redis.servers();
        Duration longLease = Duration.ofSeconds(6);
        String name = "safety:mixed-leases";
        servers.awaitUptime(longLease.plusSeconds(2));
        LockConfig.Builder config = LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.NODES, servers.uris())
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofMillis(500));
        try (TestClient a = TestClient.create(
                config.leaseTime(longLease).build(), MonotonicClock.SYSTEM, RedlockProvider.Options.DEFAULT)) {
            TestClient.takeElsewhere(servers, List.of(2), name);
            Lease held =
                    a.lock(name).tryAcquire(Duration.ofSeconds(5), longLease).orElseThrow();
            TestClient.freeElsewhere(servers, name);
            servers.get(0).restartEmpty();
            // past B's own 1 s quarantine, with the second that uptime may run ahead
            Thread.sleep(3_000);
            try (TestClient b = TestClient.create(
                    config.leaseTime(Duration.ofSeconds(1)).build(),
                    MonotonicClock.SYSTEM,
                    RedlockProvider.Options.DEFAULT)) {
                Optional<Lease> second = b.lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(1));
                boolean firstStillValid = held.isValid();
                second.ifPresent(Lease::close);
                assertThat(firstStillValid)
                        .as("A's lease, still valid when B asked")
                        .isTrue();
                assertThat(second).as("B's grant while A's lease was valid").isEmpty();
            }
            held.close();
        }
    }

    /**
     * With {@code fencedlock.redlock.persistent-nodes=true}, a node that says it fsyncs every write to its append-only file
     * counts at once, also just after a restart (it came back with the lock keys it granted), while
     * a node that does not say so keeps its restart quarantine.
     */
    @Test
    void onlyNodesThatPersistEveryWriteSkipTheQuarantine() throws Exception {
        Duration lease = Duration.ofSeconds(5);
        try (RedisServerProcess persistent = RedisServerProcess.builder()
                .arguments("--appendonly", "yes", "--appendfsync", "always")
                .start()) {
            RedlockProvider.Options options = RedlockProvider.Options.DEFAULT;
            LockConfig.Builder config = LockConfig.builder()
                    .backend("redlock")
                    .set(RedlockSettings.PERSISTENT_NODES, "true")
                    .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(2))
                    .leaseTime(lease);
            try (TestClient client = TestClient.create(
                    config.set(RedlockSettings.NODES, List.of(persistent.uri())).build(),
                    MonotonicClock.SYSTEM,
                    options)) {
                Lease held = client.lock("safety:persistent")
                        .tryAcquire(Duration.ZERO)
                        .orElseThrow();
                persistent.restartEmpty(); // SIGKILL; the new incarnation reloads its append-only file
                assertThat(client.lock("safety:persistent").tryAcquire(Duration.ZERO))
                        .as("the lock held before the restart, asked again after it")
                        .isEmpty();
                try (Lease other = client.lock("safety:persistent-other")
                        .tryAcquire(Duration.ZERO)
                        .orElseThrow()) {
                    assertThat(other.isValid()).isTrue();
                }
                held.close();
            }
            try (RedisServerProcess volatileNode = RedisServerProcess.start();
                    TestClient client = TestClient.create(
                            config.set(RedlockSettings.NODES, List.of(volatileNode.uri()))
                                    .build(),
                            MonotonicClock.SYSTEM,
                            options)) {
                assertThatThrownBy(() -> client.lock("safety:volatile").tryAcquire(Duration.ZERO))
                        .as("a node without appendfsync always, just started")
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("quarantine");
            }
        }
    }
}
