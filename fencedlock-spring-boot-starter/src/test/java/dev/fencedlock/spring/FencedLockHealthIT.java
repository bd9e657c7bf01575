package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.redis.RedisCluster;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** The starter's health indicator on real backends that fail and come back. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FencedLockHealthIT {
    private static final Duration SETTLE = Duration.ofSeconds(30);

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(FencedLockAutoConfiguration.class));

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
}
