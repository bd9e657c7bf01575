package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.testkit.redis.RedisCluster;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The starter's health indicator on real backends that fail and come back. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FencedLockHealthIT {
    private static final Duration SETTLE = Duration.ofSeconds(30);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FencedLockAutoConfiguration.class,
                    HealthContributorAutoConfiguration.class,
                    HealthContributorRegistryAutoConfiguration.class,
                    HealthEndpointAutoConfiguration.class))
            .withPropertyValues("management.endpoint.health.show-details=always");

    private static Health health(ApplicationContext context) {
        return context.getBean("fencedLockHealthIndicator", HealthIndicator.class)
                .health(true);
    }

    private static Map<?, ?> backend(Health health, String name) {
        return (Map<?, ?>) health.getDetails().get(name);
    }

    private static Map<?, ?> nodes(Health health, String name) {
        return (Map<?, ?>) backend(health, name).get("nodes");
    }

    @Test
    void aRedisClusterWithAFrozenMasterIsDownNamingItsSlotsAndUpOnceItAnswers() {
        try (RedisCluster cluster = RedisCluster.start(3)) {
            runner.withPropertyValues(
                            "fencedlock.backend=redlock",
                            "fencedlock.redlock.cluster.nodes=" + cluster.seeds(),
                            "fencedlock.redlock.node-timeout=500ms")
                    .run(context -> {
                        Health up = health(context);
                        assertThat(up.getStatus()).isEqualTo(Status.UP);
                        assertThat(nodes(up, "redlock")).hasSize(3);

                        RedisServerProcess frozen = cluster.get(1);
                        frozen.pause();
                        Health down = health(context);
                        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(backend(down, "redlock").get("state")).isEqualTo("DOWN");
                        assertThat(nodes(down, "redlock").entrySet())
                                .filteredOn(
                                        node -> String.valueOf(node.getKey()).contains(":" + frozen.port() + "/"))
                                .singleElement()
                                .satisfies(node -> {
                                    Map<?, ?> entry = (Map<?, ?>) node.getValue();
                                    assertThat(entry.get("state")).isEqualTo("FAILING");
                                    assertThat(String.valueOf(entry.get("detail")))
                                            .startsWith("slots 5461-10921: ");
                                });

                        frozen.resume();
                        Await.until(
                                "the cluster's health UP again",
                                SETTLE,
                                () -> health(context).getStatus().equals(Status.UP));
                    });
        }
    }

    private static String[] jdbcProperties(TestDatabase database, String url) {
        List<String> properties = new ArrayList<>(List.of(
                "fencedlock.backend=jdbc",
                "fencedlock.jdbc.url=" + url,
                "fencedlock.jdbc.user=" + database.user(),
                "fencedlock.jdbc.operation-timeout=500ms",
                "fencedlock.initialize-schema=never"));
        if (!database.password().isEmpty()) {
            properties.add("fencedlock.jdbc.password=" + database.password());
        }
        return properties.toArray(String[]::new);
    }

    private static Map<?, ?> onlyNode(Health health) {
        Map<?, ?> nodes = nodes(health, "jdbc");
        assertThat(nodes).hasSize(1);
        return (Map<?, ?>) nodes.values().iterator().next();
    }

    @Test
    void aJdbcDatabaseIsUpWithItsProductDownWhileItCannotBeReachedAndUpAgain() {
        try (TestDatabase database = TestDatabase.create(TestDatabase.Kind.POSTGRESQL, "health", 2)
                        .migrate(JdbcLockSettings.MIGRATION_LOCATION);
                TcpProxy proxy = database.proxy()) {
            runner.withPropertyValues(jdbcProperties(database, database.jdbcUrlThrough(proxy)))
                    .run(context -> {
                        Health up = health(context);
                        assertThat(up.getStatus()).isEqualTo(Status.UP);
                        assertThat(backend(up, "jdbc").get("state")).isEqualTo("UP");
                        assertThat(onlyNode(up).get("state")).isEqualTo("ANSWERING");
                        assertThat(String.valueOf(onlyNode(up).get("detail")))
                                .startsWith("PostgreSQL ")
                                .endsWith("; lock table fencedlock_lock usable");
                        // the health endpoint's answer as Actuator's JSON mapper writes it
                        JsonMapper json = JsonMapper.builder().build();
                        JsonNode jdbc = json.readTree(json.writeValueAsString(
                                        context.getBean(HealthEndpoint.class).health()))
                                .path("components")
                                .path("fencedLock")
                                .path("details")
                                .path("jdbc");
                        assertThat(jdbc.path("state").asString()).isEqualTo("UP");
                        assertThat(jdbc.path("nodes").values()).singleElement().satisfies(node -> {
                            assertThat(node.path("state").asString()).isEqualTo("ANSWERING");
                            assertThat(node.path("detail").asString())
                                    .startsWith("PostgreSQL ")
                                    .endsWith("; lock table fencedlock_lock usable");
                        });

                        proxy.blackhole();
                        Health down = health(context);
                        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(onlyNode(down).get("state")).isEqualTo("FAILING");
                        assertThat(String.valueOf(onlyNode(down).get("detail"))).startsWith("database not reached: ");

                        proxy.pass();
                        assertThat(health(context).getStatus()).isEqualTo(Status.UP);
                    });
        }
    }

    @Test
    void aJdbcDatabaseWithoutTheLockTableIsDownNamingTheTable() {
        try (TestDatabase database = TestDatabase.create(TestDatabase.Kind.POSTGRESQL, "healthbare", 2)) {
            runner.withPropertyValues(jdbcProperties(database, database.jdbcUrl()))
                    .run(context -> {
                        Health down = health(context);
                        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(onlyNode(down).get("state")).isEqualTo("FAILING");
                        assertThat(String.valueOf(onlyNode(down).get("detail")))
                                .contains("; lock table fencedlock_lock not usable: ");
                    });
        }
    }
}
