package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.FencedLock;
import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockTimeoutException;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.NodeFailure;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.redis.RedisServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Node faults on five real nodes: hung, flushed, restarted and unreachable nodes, and slow grants. */
class RedlockFaultsIT {
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(50);
    /**
     * A correctness bound, not a benchmark: far below the 30 s wait a blocked acquire would use up,
     * far above one node timeout (room for a retry when a loaded build machine delays a healthy node).
     */
    private static final Duration HUNG_NODE_BOUND = Duration.ofSeconds(5);

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(5);

    /**
     * One SIGSTOPped node: each acquire and release still completes in about one node timeout, far
     * inside the wait, instead of waiting for the node. The healthy four make the quorum.
     */
    @Test
    void aHungNodeDoesNotStretchAnAcquireMuchBeyondOneNodeTimeout() throws Exception {
        RedisServers servers = redis.servers();
        LockConfig config = TestClient.config(servers)
                .set(RedlockSettings.NODE_TIMEOUT, NODE_TIMEOUT)
                .build();
        try (TestClient client = TestClient.create(config)) {
            servers.get(1).pause();
            long previous = 0;
            for (int round = 0; round < 5; round++) {
                long start = System.nanoTime();
                try (Lease lease = client.lock("faults:hung").acquire(Duration.ofSeconds(30))) {
                    assertThat(lease.token()).isGreaterThan(previous);
                    previous = lease.token();
                }
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .as("acquire and release of round %d with node 1 hung", round)
                        .isLessThan(HUNG_NODE_BOUND);
            }
        }
    }

    @Test
    void aMajorityOfHungNodesIsReportedPerNodeWithinAboutOneNodeTimeout() throws Exception {
        RedisServers servers = redis.servers();
        LockConfig config = TestClient.config(servers)
                .set(RedlockSettings.NODE_TIMEOUT, NODE_TIMEOUT)
                .build();
        try (TestClient client = TestClient.create(config)) {
            for (int node : List.of(0, 2, 4)) {
                servers.get(node).pause();
            }
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.lock("faults:majority-hung").tryAcquire(Duration.ZERO))
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                        assertThat(e.nodeFailures())
                                .extracting(NodeFailure::node)
                                .contains(
                                        servers.get(0).uri() + "/0",
                                        servers.get(2).uri() + "/0",
                                        servers.get(4).uri() + "/0");
                        assertThat(e.nodeFailures())
                                .filteredOn(failure ->
                                        failure.node().equals(servers.get(2).uri() + "/0"))
                                .singleElement()
                                .satisfies(
                                        failure -> assertThat(failure.cause()).hasMessageContaining("50 ms"));
                        assertThat(e).hasMessageContaining("of 5 nodes answered, 3 needed");
                    });
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(HUNG_NODE_BOUND);
        }
    }

    @Test
    void scriptsAreLoadedAgainAfterTheScriptCacheIsFlushed() throws Exception {
        RedisServers servers = redis.servers();
        try (TestClient client = TestClient.create(TestClient.config(servers).build())) {
            FencedLock lock = client.lock("faults:noscript");
            lock.tryAcquire(Duration.ZERO).orElseThrow().close();
            for (RedisServerProcess server : servers.all()) {
                server.command("SCRIPT", "FLUSH");
            }
            try (Lease lease = lock.tryAcquire(Duration.ZERO).orElseThrow()) {
                lease.extend(Duration.ofSeconds(20));
            }
            for (RedisServerProcess server : servers.all()) {
                for (Script script : List.of(Script.ACQUIRE, Script.EXTEND, Script.RELEASE)) {
                    assertThat(server.command("SCRIPT", "EXISTS", sha(script)))
                            .as("%s on %s", script, server)
                            .isEqualTo(List.of(1L));
                }
            }
        }
    }

    @Test
    void theClientRecoversWhenEveryNodeRestartsEmpty() throws Exception {
        RedisServers servers = redis.servers();
        try (TestClient client = TestClient.create(TestClient.config(servers).build())) {
            FencedLock lock = client.lock("faults:restart-all");
            lock.tryAcquire(Duration.ZERO).orElseThrow().close();
            for (RedisServerProcess server : servers.all()) {
                server.restartEmpty();
            }
            try (Lease lease = lock.tryAcquire(Duration.ofSeconds(10)).orElseThrow()) {
                assertThat(lease.isValid()).isTrue();
            }
        }
    }

    /**
     * A monotonic clock that jumps 20 s on every reading once set off: every grant then seems to have
     * taken longer than its 5 s lease. The grant must count as a failure and be released everywhere
     * at once, not left to expire.
     */
    @Test
    void aGrantWithoutValidityLeftIsReleasedOnAllNodesAndFails() throws Exception {
        RedisServers servers = redis.servers();
        AtomicBoolean jumping = new AtomicBoolean();
        AtomicLong jumps = new AtomicLong();
        MonotonicClock clock =
                () -> System.nanoTime() + (jumping.get() ? jumps.incrementAndGet() * TimeUnit.SECONDS.toNanos(20) : 0);
        String name = "faults:no-validity";
        try (TestClient client = TestClient.create(TestClient.config(servers).build(), clock, TestClient.OPTIONS)) {
            jumping.set(true);
            assertThatThrownBy(() -> client.lock(name).acquire(Duration.ZERO, Duration.ofSeconds(5)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("5 of 5 nodes granted")
                    .hasMessageContaining("leaving no validity");
            for (int node = 0; node < 5; node++) {
                assertThat(TestClient.lockValue(servers, node, name))
                        .as("lock key on node %d", node)
                        .isNull();
            }
        }
    }

    @Test
    void unreachableNodesAreNamedWithTheirCause() throws Exception {
        RedisServers servers = redis.servers();
        try (TestClient client = TestClient.create(TestClient.config(servers).build())) {
            servers.get(1).kill();
            servers.get(3).kill();
            servers.get(4).kill();
            assertThatThrownBy(() -> client.lock("faults:unreachable").tryAcquire(Duration.ofMillis(300)))
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                        assertThat(e.nodeFailures()).hasSize(3);
                        for (int i = 0; i < 3; i++) {
                            RedisServerProcess down =
                                    servers.get(List.of(1, 3, 4).get(i));
                            assertThat(e.nodeFailures().get(i).node()).isEqualTo(down.uri() + "/0");
                        }
                        assertThat(e).hasMessageContaining("faults:unreachable").hasMessageContaining("3 needed");
                        assertThat(TestClient.reportedElapsed(e))
                                .as("the whole wait, not the last attempt")
                                .isGreaterThanOrEqualTo(Duration.ofMillis(300));
                    });
            for (int healthy : List.of(0, 2)) {
                assertThat(TestClient.lockValue(servers, healthy, "faults:unreachable"))
                        .as("lock key on healthy node %d after the attempts without a quorum", healthy)
                        .isNull();
            }
        }
    }

    private static String sha(Script script) {
        return new String(script.sha1(), StandardCharsets.US_ASCII);
    }
}
