package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencedlock.Lease;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Nodes whose {@code maxmemory-policy} may evict keys do not count toward a quorum, and the client
 * says so when it starts.
 */
class RedlockEvictionPolicyIT {
    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(3);

    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger nodeLog = (Logger) LoggerFactory.getLogger(JedisRedisNode.class);

    @BeforeEach
    void captureLog() {
        logged.start();
        nodeLog.addAppender(logged);
    }

    @AfterEach
    void restore() {
        nodeLog.detachAppender(logged);
        for (int n = 0; n < 3; n++) {
            policy(redis.servers(), n, "0", "noeviction");
        }
    }

    private static void policy(RedisServers servers, int node, String maxmemory, String policy) {
        servers.get(node).command("CONFIG", "SET", "maxmemory", maxmemory);
        servers.get(node).command("CONFIG", "SET", "maxmemory-policy", policy);
    }

    @Test
    void evictingNodesAreLeftOutOfTheQuorumAndNamedAtStartUp() throws Exception {
        RedisServers servers = redis.servers();
        policy(servers, 0, "64mb", "allkeys-lru");
        policy(servers, 1, "64mb", "volatile-ttl");
        try (TestClient client = TestClient.create(TestClient.config(servers).build())) {
            assertThat(logged.list)
                    .filteredOn(e -> e.getLevel() == Level.WARN)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .anySatisfy(
                            m -> assertThat(m).contains(servers.get(0).uri()).contains("allkeys-lru"))
                    .anySatisfy(
                            m -> assertThat(m).contains(servers.get(1).uri()).contains("volatile-ttl"));
            assertThatThrownBy(() -> client.lock("evicting").tryAcquire(Duration.ZERO))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("3 of 3 nodes answered, 1 counted, 2 needed")
                    .hasMessageContaining("maxmemory-policy allkeys-lru with maxmemory 67108864")
                    .hasMessageContaining("set maxmemory-policy noeviction");
        }
    }

    @Test
    void oneEvictingNodeOfThreeLeavesAQuorumOfTwo() throws Exception {
        RedisServers servers = redis.servers();
        policy(servers, 2, "64mb", "volatile-lru");
        try (TestClient client = TestClient.create(TestClient.config(servers).build())) {
            Optional<Lease> lease = client.lock("one-evicting").tryAcquire(Duration.ofSeconds(5));
            assertThat(lease).isPresent();
            lease.get().close();
        }
    }

    @Test
    void anEvictingPolicyWithoutAMemoryLimitEvictsNothingAndCounts() throws Exception {
        RedisServers servers = redis.servers();
        for (int n = 0; n < 3; n++) {
            policy(servers, n, "0", "allkeys-lru");
        }
        try (TestClient client = TestClient.create(TestClient.config(servers).build())) {
            Optional<Lease> lease = client.lock("no-limit").tryAcquire(Duration.ofSeconds(5));
            assertThat(lease).isPresent();
            lease.get().close();
        }
        assertThat(logged.list).noneMatch(e -> e.getLevel() == Level.WARN);
    }
}
