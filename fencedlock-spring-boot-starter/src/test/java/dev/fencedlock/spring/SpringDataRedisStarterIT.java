package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.redis.RedisCluster;
import dev.fencedlock.testkit.redis.RedisSentinelGroup;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The starter on Spring Boot's own {@code spring.data.redis.*} settings, against real processes: a
 * Sentinel group (a master, a replica, three Sentinels) and a Redis Cluster of three masters. A lock
 * is held and its key looked up on the server that must have it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(OutputCaptureExtension.class)
class SpringDataRedisStarterIT {
    private static final String MASTER = "fencedlock-spring";

    @RegisterExtension
    static final PerClassResource<RedisSentinelGroup> sentinel =
            PerClassResource.of(() -> RedisSentinelGroup.start(MASTER, 1, 3, Duration.ofSeconds(5)));

    @RegisterExtension
    static final PerClassResource<RedisCluster> cluster = PerClassResource.of(() -> RedisCluster.start(3));

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencedLockAutoConfiguration.class))
            .withPropertyValues(
                    "fencedlock.backend=redlock",
                    "fencedlock.redlock.node-timeout=500ms",
                    // the servers just started: keep the Sentinel master's restart quarantine short
                    "fencedlock.lease-time=1s");

    @Test
    void onlySpringBootsSentinelSettingsPutTheLockOnTheMasterTheSentinelsName(CapturedOutput output) {
        runner.withPropertyValues(
                        "fencedlock.redlock.restart-quarantine=1s",
                        "spring.data.redis.sentinel.master=" + MASTER,
                        "spring.data.redis.sentinel.nodes=" + sentinel.get().sentinelNodes())
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    assertThat(RedlockSettings.from(client.config().settings("redlock"))
                                    .sentinel()
                                    .orElseThrow()
                                    .master())
                            .isEqualTo(MASTER);
                    String name = "spring-data-redis:sentinel";
                    try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(20))) {
                        assertThat(lease.backend()).isEqualTo("redlock");
                        assertThat(sentinel.get().master().command("GET", RedlockKeys.lockKey(name)))
                                .as("the lock key on the master started as one")
                                .isNotNull();
                        assertThat(Long.parseLong(String.valueOf(
                                        sentinel.get().master().command("GET", RedlockKeys.tokenKey(name)))))
                                .isEqualTo(lease.token());
                    }
                    assertThat(sentinel.get().master().command("GET", RedlockKeys.lockKey(name)))
                            .as("released on the master")
                            .isNull();
                });
        assertThat(output.getOut())
                .containsOnlyOnce("fencedlock.redlock takes its Redis from spring.data.redis.sentinel.master and"
                        + " spring.data.redis.sentinel.nodes (master " + MASTER + ", 3 Sentinels)");
    }

    @Test
    void onlySpringBootsClusterNodesPutTheLockOnTheMasterOfItsSlot() {
        runner.withPropertyValues(
                        "spring.data.redis.cluster.nodes=" + cluster.get().seeds())
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    String name = "spring-data-redis:cluster";
                    String key = RedlockKeys.lockKey(name);
                    try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(20))) {
                        RedisServerProcess owner =
                                cluster.get().ownerOf(cluster.get().slotOf(key));
                        assertThat(owner.command("GET", key))
                                .as("the lock key on %s, the master of its slot", owner)
                                .isNotNull();
                        assertThat(Long.parseLong(String.valueOf(owner.command("GET", RedlockKeys.tokenKey(name)))))
                                .isEqualTo(lease.token());
                    }
                });
    }

    @Test
    void explicitFencedlockKeysOverrideSpringBootsAndSaySoOnce(CapturedOutput output) {
        String name = "spring-data-redis:override";
        String key = RedlockKeys.lockKey(name);
        runner.withPropertyValues(
                        "fencedlock.redlock.restart-quarantine=1s",
                        "fencedlock.redlock.sentinel.master=" + MASTER,
                        "fencedlock.redlock.sentinel.nodes=" + sentinel.get().sentinelNodes(),
                        "spring.data.redis.cluster.nodes=" + cluster.get().seeds())
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(20))) {
                        assertThat(sentinel.get().master().command("GET", key))
                                .as("the lock on the Sentinel master the fencedlock keys name")
                                .isNotNull();
                        assertThat(cluster.get()
                                        .ownerOf(cluster.get().slotOf(key))
                                        .command("EXISTS", key))
                                .as("not on the cluster spring.data.redis names")
                                .isEqualTo(0L);
                    }
                });
        assertThat(output.getOut())
                .containsOnlyOnce(
                        "fencedlock.redlock uses its own [fencedlock.redlock.sentinel.master,"
                                + " fencedlock.redlock.sentinel.nodes]; spring.data.redis.cluster.nodes name other Redis settings")
                .doesNotContain("fencedlock.redlock takes its Redis from");
    }
}
