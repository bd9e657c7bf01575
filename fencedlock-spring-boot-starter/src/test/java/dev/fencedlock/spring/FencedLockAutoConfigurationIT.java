package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.redis.RedisServers;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** The LockClient bean from properties: every backend, Spring's property idioms, and bad values failing start-up. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FencedLockAutoConfigurationIT {
    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(FencedLockAutoConfiguration.class));

    @Test
    void localBackendFromProperties() {
        runner.withPropertyValues("fencedlock.backend=local", "fencedlock.lease-time=7s")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    assertThat(client.config().backend()).isEqualTo("local");
                    assertThat(client.config().leaseTime()).isEqualTo(Duration.ofSeconds(7));
                    try (Lease lease = client.lock("props:local").acquire(Duration.ofSeconds(5))) {
                        assertThat(lease.backend()).isEqualTo("local");
                    }
                });
    }

    @Test
    void redlockBackendOnRealRedisServers() {
        try (RedisServers servers = RedisServers.start(3)) {
            runner.withPropertyValues(
                            "fencedlock.backend=redlock",
                            "fencedlock.redlock.nodes=" + servers.nodes(),
                            "fencedlock.redlock.node-timeout=500ms",
                            // the servers just started: keep their restart quarantine short
                            "fencedlock.lease-time=1s",
                            "fencedlock.redlock.restart-quarantine=1s")
                    .run(context -> {
                        LockClient client = context.getBean(LockClient.class);
                        assertThat(client.config().backend()).isEqualTo("redlock");
                        long first;
                        try (Lease lease = client.lock("props:redlock").acquire(Duration.ofSeconds(20))) {
                            assertThat(lease.backend()).isEqualTo("redlock");
                            first = lease.token();
                        }
                        try (Lease lease = client.lock("props:redlock").acquire(Duration.ofSeconds(20))) {
                            assertThat(lease.token()).isGreaterThan(first);
                        }
                    });
        }
    }

    @Test
    void healthIsUpForTheLocalBackend() {
        runner.withPropertyValues("fencedlock.backend=local").run(context -> {
            Health health = context.getBean("fencedLockHealthIndicator", HealthIndicator.class)
                    .health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("local", Map.of("state", "UP", "nodes", Map.of()));
        });
    }

    @Test
    void healthIsDownNamingQuarantinedRedisNodesAndUpOnceTheFallbackCanGrant() {
        // just started, so every master is inside the restart quarantine of a 30 s lease
        try (RedisServers servers = RedisServers.start(3)) {
            runner.withPropertyValues(
                            "fencedlock.backend=redlock",
                            "fencedlock.redlock.nodes=" + servers.nodes(),
                            "fencedlock.redlock.node-timeout=500ms")
                    .run(context -> {
                        Health health = context.getBean("fencedLockHealthIndicator", HealthIndicator.class)
                                .health(true);
                        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(health.getDetails().get("redlock")).isInstanceOfSatisfying(Map.class, redlock -> {
                            assertThat(redlock.get("state")).isEqualTo("DOWN");
                            assertThat(((Map<?, ?>) redlock.get("nodes")).values())
                                    .hasSize(3)
                                    .allSatisfy(node -> {
                                        assertThat(((Map<?, ?>) node).get("state"))
                                                .isEqualTo("QUARANTINED");
                                        assertThat(((Map<?, ?>) node).get("detail"))
                                                .isNotNull();
                                    });
                        });
                    });
            runner.withPropertyValues(
                            "fencedlock.backend=redlock",
                            "fencedlock.redlock.nodes=" + servers.nodes(),
                            "fencedlock.redlock.node-timeout=500ms",
                            "fencedlock.fallback=local")
                    .run(context -> {
                        Health health = context.getBean("fencedLockHealthIndicator", HealthIndicator.class)
                                .health(true);
                        assertThat(health.getStatus()).isEqualTo(Status.UP);
                        assertThat(health.getDetails()).containsOnlyKeys("redlock", "local");
                    });
        }
    }

    @Test
    void redlockNodesAsAYamlList() {
        try (RedisServers servers = RedisServers.start(3)) {
            runner.withPropertyValues(
                            "fencedlock.backend=redlock",
                            "fencedlock.redlock.nodes[0]=" + servers.uris().get(0),
                            "fencedlock.redlock.nodes[1]=" + servers.uris().get(1),
                            "fencedlock.redlock.nodes[2]=" + servers.uris().get(2),
                            "fencedlock.redlock.node-timeout=500ms")
                    .run(context -> assertThat(context.getBean(LockClient.class)
                                    .config()
                                    .settings("redlock")
                                    .get("fencedlock.redlock.nodes"))
                            .hasValue(servers.nodes()));
        }
    }

    @Test
    void zookeeperBackendOnATestingServer() throws Exception {
        try (TestingServer server = ZooKeeperServers.start()) {
            runner.withPropertyValues(
                            "fencedlock.backend=zookeeper", "fencedlock.zookeeper.connect=" + server.getConnectString())
                    .run(context -> {
                        LockClient client = context.getBean(LockClient.class);
                        try (Lease lease = client.lock("props:zookeeper").acquire(Duration.ofSeconds(10))) {
                            assertThat(lease.backend()).isEqualTo("zookeeper");
                            assertThat(lease.isValid()).isTrue();
                        }
                        Health health = context.getBean("fencedLockHealthIndicator", HealthIndicator.class)
                                .health(true);
                        assertThat(health.getStatus()).isEqualTo(Status.UP);
                        assertThat(health.getDetails().get("zookeeper"))
                                .isInstanceOfSatisfying(
                                        Map.class,
                                        zookeeper -> assertThat(((Map<?, ?>) zookeeper.get("nodes")).values())
                                                .singleElement()
                                                .isInstanceOfSatisfying(
                                                        Map.class,
                                                        node -> assertThat(node.get("state"))
                                                                .isEqualTo("CONNECTED")));
                    });
        }
    }

    @Test
    void environmentVariablesReachTheirKeys() {
        runner.withPropertyValues("fencedlock.backend=local")
                .withInitializer(context -> context.getEnvironment()
                        .getPropertySources()
                        .addFirst(new SystemEnvironmentPropertySource(
                                "test-systemEnvironment", Map.of("FENCEDLOCK_LEASE_TIME", "9s"))))
                .run(context -> assertThat(
                                context.getBean(LockClient.class).config().leaseTime())
                        .isEqualTo(Duration.ofSeconds(9)));
    }

    @Test
    void namesOfOtherProgramsInSystemPropertiesAndEnvironmentDoNotStopStartUp() {
        // mvn -Dfencedlock.version=... reaches the test JVM through surefire
        runner.withPropertyValues("fencedlock.backend=local")
                .withSystemProperties("fencedlock.version=0.1.0-SNAPSHOT", "fencedlock.test.containers=never")
                .withInitializer(context -> context.getEnvironment()
                        .getPropertySources()
                        .addFirst(new SystemEnvironmentPropertySource(
                                "test-systemEnvironment", Map.of("FENCEDLOCK_HOME", "/opt/fencedlock"))))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LockClient.class).config().values())
                            .doesNotContainKeys("fencedlock.version", "fencedlock.home");
                });
    }

    @Test
    void misspeltSystemPropertyOrEnvironmentVariableStillFailsStartUp() {
        runner.withPropertyValues("fencedlock.backend=local")
                .withSystemProperties("fencedlock.lease-tme=5s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("'fencedlock.lease-tme' (system property)")
                        .hasMessageContaining("did you mean 'fencedlock.lease-time'?"));
        runner.withPropertyValues("fencedlock.backend=local")
                .withInitializer(context -> context.getEnvironment()
                        .getPropertySources()
                        .addFirst(new SystemEnvironmentPropertySource(
                                "test-systemEnvironment", Map.of("FENCEDLOCK_REDLOCK_NODE_TIMOUT", "5s"))))
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("'FENCEDLOCK_REDLOCK_NODE_TIMOUT' (environment variable)")
                        .hasMessageContaining(
                                "did you mean 'FENCEDLOCK_REDLOCK_NODE_TIMEOUT' (fencedlock.redlock.node-timeout)?"));
    }

    @Test
    void anUnknownKeyInTheApplicationsOwnPropertiesFailsStartUpHoweverFarFromAKey() {
        runner.withPropertyValues("fencedlock.backend=local", "fencedlock.version=1")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("fencedlock.version"));
    }

    @Test
    void badValueFailsStartUpNamingTheKey() {
        runner.withPropertyValues("fencedlock.backend=local", "fencedlock.lease-time=soon")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("fencedlock.lease-time")
                        .hasMessageContaining("soon"));
    }

    @Test
    void misspeltKeyFailsStartUpNamingIt() {
        runner.withPropertyValues("fencedlock.backend=local", "fencedlock.lease-tme=5s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("fencedlock.lease-tme"));
    }

    @Test
    void missingBackendFailsStartUpNamingTheKey() {
        runner.run(context -> assertThat(context)
                .getFailure()
                .rootCause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.backend"));
    }

    @Test
    void badRedlockNodeFailsStartUpNamingTheKey() {
        runner.withPropertyValues("fencedlock.backend=redlock", "fencedlock.redlock.nodes=http://127.0.0.1:1")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("fencedlock.redlock.nodes"));
    }

    @Test
    void lockedAttributeThatCannotBeReadFailsTheCallNamingMethodAndAttribute() {
        runner.withPropertyValues("fencedlock.backend=local")
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
                .withBean(BadlyLocked.class)
                .run(context -> {
                    BadlyLocked bean = context.getBean(BadlyLocked.class);
                    assertThatThrownBy(bean::work)
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("BadlyLocked.work")
                            .hasMessageContaining("waitTime")
                            .hasMessageContaining("soon");
                    assertThat(bean.calls).isZero();
                });
    }

    static class BadlyLocked {
        int calls;

        @Locked(value = "'bad'", waitTime = "soon")
        public void work() {
            calls++;
        }
    }

    @Test
    void configurationMetadataDescribesEveryKey() throws Exception {
        Set<String> described = new HashSet<>();
        try (InputStream json = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            JSONArray properties =
                    new JSONObject(new String(json.readAllBytes(), StandardCharsets.UTF_8)).getJSONArray("properties");
            for (int i = 0; i < properties.length(); i++) {
                described.add(properties.getJSONObject(i).getString("name"));
            }
        }
        assertThat(described)
                .containsAll(LockConfig.keys())
                .contains("fencedlock.initialize-schema", "fencedlock.protected-tables");
    }
}
